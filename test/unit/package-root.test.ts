import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listPackageDir } from '../../src/package-root.js';

// The package's folders are listed once a process (a session asked for the presets' twice a call); a
// listing that failed is not kept.

let root = '';
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('listing a folder of the package', () => {
  it('lists it once a process, and tries again after a listing that failed', async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-mailbox-package-dir-'));
    const dir = join(root, 'presets');
    await expect(listPackageDir(dir)).rejects.toThrow(/ENOENT/);
    await mkdir(dir);
    await writeFile(join(dir, 'a.json'), '{}');
    expect(await listPackageDir(dir)).toEqual(['a.json']);
    await writeFile(join(dir, 'b.json'), '{}');
    expect(await listPackageDir(dir), 'the first listing stands for the process').toEqual(['a.json']);
  });
});
