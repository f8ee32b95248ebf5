import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A folder says what it holds only while a reader can take it in at a glance: no folder of src/
// holds more than 15 files of its own (its subfolders count for themselves).
const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');
const maxFilesPerFolder = 15;

function folders(dir: string): { path: string; files: number }[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const own = {
    path: relative(srcRoot, dir).replace(/\\/g, '/') || '.',
    files: entries.filter((e) => e.isFile()).length,
  };
  return [own, ...entries.filter((e) => e.isDirectory()).flatMap((e) => folders(join(dir, e.name)))];
}

describe('folder size', () => {
  const all = folders(srcRoot);

  it(`no folder of src/ holds more than ${maxFilesPerFolder} files of its own`, () => {
    const over = all.filter((f) => f.files > maxFilesPerFolder).map((f) => `src/${f.path}: ${f.files} files`);
    expect(over).toEqual([]);
  });
});
