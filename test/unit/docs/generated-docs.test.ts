import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { operationsFor } from '../../../src/operations/index.js';
import { renderToolDocs } from '../../../src/operations/render-tool-docs.js';
import { summarizeOperations } from '../../../src/operations/summarize-operations.js';
import { renderSettingsTable } from '../../../src/config.js';

// README's tool section and SKILL.md's command list are generated from the operations table (the
// entries an agent reaches; operator-only commands are in --help).
// `UPDATE_DOCS=1 npx vitest run test/unit/docs` rewrites them; otherwise a drift fails the suite.
const tools = (style: 'mcp' | 'cli') => () => renderToolDocs(summarizeOperations(operationsFor('mcp')), style);
const targets = [
  { file: '../../../README.md', section: 'tools', render: tools('mcp') },
  { file: '../../../README.md', section: 'config', render: renderSettingsTable },
  { file: '../../../skill/SKILL.md', section: 'tools', render: tools('cli') },
];

describe('generated documentation', () => {
  for (const target of targets) {
    it(`${target.file.replace(/^[./]+/, '')} shows the ${target.section} exactly as the code declares them`, () => {
      const start = `<!-- generated:${target.section}:start -->`;
      const end = `<!-- generated:${target.section}:end -->`;
      const path = fileURLToPath(new URL(target.file, import.meta.url));
      const text = readFileSync(path, 'utf8');
      const from = text.indexOf(start);
      const to = text.indexOf(end);
      expect(from, `${path} needs the markers ${start} … ${end}`).toBeGreaterThanOrEqual(0);
      expect(to).toBeGreaterThan(from);
      const generated = `${start}\n${target.render()}\n${end}`;
      const current = text.slice(from, to + end.length);
      if (process.env.UPDATE_DOCS === '1' && current !== generated) {
        writeFileSync(path, text.slice(0, from) + generated + text.slice(to + end.length));
        return;
      }
      expect(current).toBe(generated);
    });
  }
});
