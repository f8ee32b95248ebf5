import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../../src/errors.js';

/**
 * The troubleshooting topic and the code must agree: every error code it explains is produced
 * somewhere in src, and every code src produces is explained there.
 */

const root = new URL('../../../', import.meta.url).pathname;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory()
        ? sourceFiles(join(dir, e.name))
        : Promise.resolve(e.name.endsWith('.ts') ? [join(dir, e.name)] : []),
    ),
  );
  return nested.flat();
}

describe('error codes in help', () => {
  it('documents exactly the codes the code produces', async () => {
    const help = await readFile(join(root, 'skill/references/troubleshooting.md'), 'utf8');
    const documented = [...help.matchAll(/^- `([a-z_]+)`:/gm)].map((m) => m[1]!).sort();
    // The list of codes and the CLI's exit-code table name codes without producing them.
    const listers = new Set([join(root, 'src/errors.ts'), join(root, 'src/render/render-error.ts')]);
    const files = (await sourceFiles(join(root, 'src'))).filter((f) => !listers.has(f) && !f.includes('/sandbox/'));
    const text = (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
    const produced = errorCodes.filter((code) => text.includes(`'${code}'`)).sort();
    expect(documented).toEqual(produced);
  });
});
