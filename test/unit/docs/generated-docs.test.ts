import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderPresetTable } from '../../../src/help/render-preset-table.js';
import { operationsFor } from '../../../src/operations/index.js';
import { summarizeOperations } from '../../../src/operations/help.js';
import { listPresets } from '../../../src/presets/load-preset.js';
import { renderExitCodeTable, renderSettingsTable, renderToolDocs, renderToolTable } from './doc-tables.js';
import { renderJmapResultKeys } from './jmap-result-keys.js';

// Every block between generated markers is rendered from the code that decides what it says: the
// operations table, the settings, the presets, the exit codes, the keys of jmap_request's result.
// `UPDATE_DOCS=1 npx vitest run test/unit/docs` rewrites them; otherwise a drift fails the suite.
const agentTools = () => summarizeOperations(operationsFor('mcp'));
// The reference also lists the operator-only flags of those commands (e.g. register --show-api-key).
const agentToolsWithCliFlags = () => summarizeOperations(operationsFor('mcp'), { cliInputs: true });
const mcpNames = new Set(operationsFor('mcp').map((op) => op.name));
// The operator's commands, and whether each takes the configuration flags (the field the CLI builds them by).
const operatorCommands = () =>
  operationsFor('cli')
    .filter((op) => !mcpNames.has(op.name))
    .map((op) => {
      const doc = renderToolDocs(summarizeOperations([op], { cliInputs: true }), 'cli');
      return op.cli?.configOptions === false
        ? `${doc}\n\nTakes none of the configuration flags (\`--api-url\`, \`--timeout-ms\`, …).`
        : doc;
    })
    .join('\n\n');

interface Target {
  file: string;
  section: string;
  render: () => string | Promise<string>;
}

const targets: Target[] = [
  { file: 'README.md', section: 'tool-table', render: () => renderToolTable(agentTools()) },
  { file: 'README.md', section: 'exit-codes', render: renderExitCodeTable },
  { file: 'docs/reference.md', section: 'tools', render: () => renderToolDocs(agentToolsWithCliFlags(), 'mcp') },
  { file: 'docs/reference.md', section: 'presets', render: async () => renderPresetTable(await listPresets()) },
  { file: 'docs/reference.md', section: 'result-keys', render: renderJmapResultKeys },
  { file: 'docs/reference.md', section: 'operator-commands', render: operatorCommands },
  { file: 'docs/reference.md', section: 'config', render: renderSettingsTable },
  { file: 'docs/reference.md', section: 'exit-codes', render: renderExitCodeTable },
  { file: 'skill/SKILL.md', section: 'tools', render: () => renderToolDocs(agentTools(), 'cli') },
  { file: 'skill/SKILL.md', section: 'exit-codes', render: renderExitCodeTable },
  { file: 'skill/references/jmap.md', section: 'result-keys', render: renderJmapResultKeys },
  { file: 'skill/references/troubleshooting.md', section: 'exit-codes', render: renderExitCodeTable },
  { file: 'skill/references/auth.md', section: 'config', render: renderSettingsTable },
];

describe('generated documentation', () => {
  for (const target of targets) {
    it(`${target.file} shows the ${target.section} exactly as the code declares them`, async () => {
      const start = `<!-- generated:${target.section}:start -->`;
      const end = `<!-- generated:${target.section}:end -->`;
      const path = fileURLToPath(new URL(`../../../${target.file}`, import.meta.url));
      const text = readFileSync(path, 'utf8');
      const from = text.indexOf(start);
      const to = text.indexOf(end);
      expect(from, `${path} needs the markers ${start} … ${end}`).toBeGreaterThanOrEqual(0);
      expect(to).toBeGreaterThan(from);
      const generated = `${start}\n${await target.render()}\n${end}`;
      const current = text.slice(from, to + end.length);
      if (process.env.UPDATE_DOCS === '1' && current !== generated) {
        writeFileSync(path, text.slice(0, from) + generated + text.slice(to + end.length));
        return;
      }
      expect(current).toBe(generated);
    });
  }
});
