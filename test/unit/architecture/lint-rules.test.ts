import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The project's own ESLint configuration over fixtures that break a rule on purpose (kept out of
// `npm run lint` by the config's ignores): the rule must fire, or the tree's clean lint proves nothing.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const eslint = new ESLint({ cwd: root, ignore: false });

async function ruleIds(files: string[]): Promise<string[]> {
  const results = await eslint.lintFiles(files.map((f) => resolve(root, f)));
  return results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(root.length + 1)}: ${m.ruleId ?? m.message}`));
}

describe('lint rules', () => {
  it('fail on a run-time import cycle between two .ts files that import each other with .js specifiers', async () => {
    expect(await ruleIds(['test/fixtures/lint/cycle/first.ts', 'test/fixtures/lint/cycle/second.ts'])).toEqual([
      'test/fixtures/lint/cycle/first.ts: import-x/no-cycle',
      'test/fixtures/lint/cycle/second.ts: import-x/no-cycle',
    ]);
  });

  it('count a dynamic import() in a cycle', async () => {
    expect(await ruleIds(['test/fixtures/lint/dynamic-cycle/table.ts', 'test/fixtures/lint/dynamic-cycle/entry.ts'])).toEqual([
      'test/fixtures/lint/dynamic-cycle/table.ts: import-x/no-cycle',
      'test/fixtures/lint/dynamic-cycle/entry.ts: import-x/no-cycle',
    ]);
  });

  it('let type-only imports that point back at each other pass: tsc erases them', async () => {
    expect(await ruleIds(['test/fixtures/lint/type-only/left.ts', 'test/fixtures/lint/type-only/right.ts'])).toEqual([]);
  });
});
