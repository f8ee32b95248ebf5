import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A folder says what it holds only while a reader can take it in at a glance: no folder of src/
// holds more than 15 files of its own (its subfolders count for themselves), nor of the sandbox's.
// A folder is a concern, so none of either package holds fewer than 3: its files, each subfolder
// counted as one of them (a subfolder is a concern inside it), every kind of file counted.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const maxFilesPerFolder = 15;
const minEntriesPerFolder = 3;

function folders(dir: string): { path: string; files: number; subfolders: number }[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const own = {
    path: relative(repoRoot, dir).replace(/\\/g, '/'),
    files: entries.filter((e) => e.isFile()).length,
    subfolders: entries.filter((e) => e.isDirectory()).length,
  };
  return [own, ...entries.filter((e) => e.isDirectory()).flatMap((e) => folders(join(dir, e.name)))];
}

describe('folder size', () => {
  const all = [...folders(join(repoRoot, 'src')), ...folders(join(repoRoot, 'sandbox', 'src'))];

  it(`no folder of src/ or sandbox/src/ holds more than ${maxFilesPerFolder} files of its own`, () => {
    const over = all.filter((f) => f.files > maxFilesPerFolder).map((f) => `${f.path}: ${f.files} files`);
    expect(over).toEqual([]);
  });

  it(`no folder of src/ or sandbox/src/ holds fewer than ${minEntriesPerFolder} files and subfolders: a folder of one or two files is no concern of its own`, () => {
    const under = all
      .filter((f) => f.files + f.subfolders < minEntriesPerFolder)
      .map((f) => `${f.path}: ${f.files} files, ${f.subfolders} subfolders`);
    expect(under).toEqual([]);
  });
});
