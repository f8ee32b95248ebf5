import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A folder says what it holds only while a reader can take it in at a glance: no folder of src/
// holds more than 15 files of its own (its subfolders count for themselves), nor of the sandbox's.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const maxFilesPerFolder = 15;

function folders(dir: string): { path: string; files: number }[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const own = {
    path: relative(repoRoot, dir).replace(/\\/g, '/'),
    files: entries.filter((e) => e.isFile()).length,
  };
  return [own, ...entries.filter((e) => e.isDirectory()).flatMap((e) => folders(join(dir, e.name)))];
}

describe('folder size', () => {
  const all = [...folders(join(repoRoot, 'src')), ...folders(join(repoRoot, 'sandbox', 'src'))];

  it(`no folder of src/ or sandbox/src/ holds more than ${maxFilesPerFolder} files of its own`, () => {
    const over = all.filter((f) => f.files > maxFilesPerFolder).map((f) => `${f.path}: ${f.files} files`);
    expect(over).toEqual([]);
  });
});
