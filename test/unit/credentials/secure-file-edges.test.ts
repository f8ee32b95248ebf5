import { chmod, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensurePrivateDir, readPrivateFile, writeFileAtomic } from '../../../src/credentials/secure-file.js';
import { refusal } from '../../helpers/mailbox-refusal.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * The credentials directory at its edges: a directory reached through a link (whose target may be
 * a shared folder the user never meant to tighten), files and directories where the other should be,
 * a write that cannot land, and a long-lived server that reads and writes on every call without
 * leaking a file descriptor.
 */

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('the credentials directory behind a link', () => {
  it('is used but never chmod-ed, neither when ensured nor when a file in it is read', async () => {
    const base = await tempCredentialsDir();
    const shared = join(base, 'shared');
    await mkdir(shared, { recursive: true });
    await chmod(shared, 0o755);
    const linked = join(base, 'linked');
    await symlink(shared, linked);
    await writeFile(join(shared, 'state.json'), '{}', { mode: 0o600 });

    await ensurePrivateDir(linked);
    expect(await readPrivateFile(join(linked, 'state.json'))).toBe('{}');
    expect(await mode(shared)).toBe(0o755);
  });
});

describe('what stands where a file or directory should be', () => {
  it('says a file where the credentials directory should be is the wrong path, when the directory is made', async () => {
    const base = await tempCredentialsDir();
    await mkdir(base, { recursive: true });
    const dir = join(base, 'creds');
    await writeFile(dir, 'not a directory');
    const error = await refusal(ensurePrivateDir(dir));
    expect(error.code).toBe('credentials_unwritable');
    expect(error.message).toContain(`Cannot write ${dir}`);
    expect(error.hint).toContain(`${dir} is a file, not a directory`);
  });

  it('says so too when a file under such a path is read', async () => {
    const base = await tempCredentialsDir();
    await mkdir(base, { recursive: true });
    const dir = join(base, 'creds');
    await writeFile(dir, 'not a directory');
    const error = await refusal(readPrivateFile(join(dir, 'credentials.json')));
    expect(error.code).toBe('credentials_unwritable');
    expect(error.message).toContain(`Cannot read ${join(dir, 'credentials.json')}`);
    expect(error.hint).toContain(`${dir} is a file, not a directory`);
  });

  it('names a directory where a file should be as not a regular file, and points at the permissions', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(join(dir, 'state.json'), { recursive: true });
    const error = await refusal(readPrivateFile(join(dir, 'state.json')));
    expect(error.code).toBe('credentials_unwritable');
    expect(error.message).toBe(`Cannot read ${join(dir, 'state.json')}: not a regular file.`);
    expect(error.hint).toContain('Check the permissions of the credentials directory');
  });

  it('fails a write onto a directory, names it, and leaves no temp file', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(join(dir, 'session.jwt', 'inner'), { recursive: true });
    const error = await refusal(writeFileAtomic(join(dir, 'session.jwt'), 'x'));
    expect(error.code).toBe('credentials_unwritable');
    expect(error.message).toContain(`Cannot write ${join(dir, 'session.jwt')}`);
    expect(error.hint).toContain('Choose a credentials directory this user can write');
    expect(await readdir(dir)).toEqual(['session.jwt']);
  });

  it("tells the user to move the link's target into place", async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'elsewhere'), '{}');
    await symlink(join(dir, 'elsewhere'), join(dir, 'credentials.json'));
    const error = await refusal(readPrivateFile(join(dir, 'credentials.json')));
    expect(error.hint).toContain(`move the target to ${join(dir, 'credentials.json')}`);
  });
});

describe('a long-lived process', () => {
  it.runIf(process.platform === 'linux')('closes every file it opens, over many reads and writes', async () => {
    const dir = await tempCredentialsDir();
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, '0');
    await readPrivateFile(path);
    const open = (): number => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 1; i <= 40; i++) {
      await writeFileAtomic(path, String(i));
      // A fresh write is a new file: the read opens it, it does not come from the cache.
      expect(await readPrivateFile(path)).toBe(String(i));
    }
    expect(open() - before).toBeLessThan(10);
  });
});
