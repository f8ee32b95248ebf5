import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recoverInterruptedWrites } from '../../../src/credentials/recover-interrupted-writes.js';
import { MailboxError } from '../../../src/errors.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * What the next read does with the temp files a killed writer left: a credentials temp may hold the
 * only copy of a new inbox's apiKey, so it is put in place or kept in sight, never deleted unread,
 * and never written over a credentials.json that may still hold a key of its own.
 */

const alice = { apiKey: 'amk_alice_recover_0123456789', inboxId: 'alice', inbox: 'alice@agent-mailbox.test' };
const bob = { apiKey: 'amk_bob_recover_0123456789ab', inboxId: 'bob' };

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await tempCredentialsDir();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text, { mode: 0o600 });
  return dir;
}

const tempOf = (target: string, pid: number): string => `.${target}.${pid}.0123456789ab.tmp`;

async function recover(dir: string): Promise<string[]> {
  const notices: string[] = [];
  await recoverInterruptedWrites(dir, (m) => notices.push(m));
  return notices;
}

describe('recoverInterruptedWrites', () => {
  it('does nothing in a directory that does not exist yet', async () => {
    expect(await recover(join(await tempCredentialsDir(), 'missing'))).toEqual([]);
  });

  it("puts a dead writer's credentials in place when there are none, naming the inbox id when the address is unknown", async () => {
    const temp = tempOf('credentials.json', await deadPid());
    const dir = await dirWith({ [temp]: `\uFEFF${JSON.stringify(bob)}` });
    const notices = await recover(dir);
    expect(await readdir(dir)).toEqual(['credentials.json']);
    expect(JSON.parse((await readFile(join(dir, 'credentials.json'), 'utf8')).replace(/^\uFEFF/, ''))).toEqual(bob);
    expect(notices).toEqual([
      `Recovered the credentials of bob from an interrupted write (${join(dir, temp)} → ${join(dir, 'credentials.json')}).`,
    ]);
  });

  it("removes a dead writer's copy of the same apiKey without a word", async () => {
    const temp = tempOf('credentials.json', await deadPid());
    const dir = await dirWith({
      'credentials.json': JSON.stringify(alice),
      [temp]: JSON.stringify({ ...alice, watch: 'scheduled' }),
    });
    expect(await recover(dir)).toEqual([]);
    expect(await readdir(dir)).toEqual(['credentials.json']);
    expect(JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8'))).toEqual(alice);
  });

  it('keeps another apiKey beside the credentials under a visible, timestamped name', async () => {
    const dir = await dirWith({
      'credentials.json': JSON.stringify(alice),
      [tempOf('credentials.json', await deadPid())]: JSON.stringify(bob),
    });
    const notices = await recover(dir);
    const kept = (await readdir(dir)).filter((n) => n !== 'credentials.json');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^credentials\.json\.recovered-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(JSON.parse(await readFile(join(dir, kept[0]!), 'utf8'))).toEqual(bob);
    expect(notices).toEqual([
      `An interrupted write left other credentials (bob); they were kept in ${join(dir, kept[0]!)}. credentials.json is unchanged.`,
    ]);
  });

  it('never writes a recovered key over a damaged credentials.json, which may hold a key of its own', async () => {
    const damaged = '{"apiKey": "amk_only_copy_of_this_key_0123", "inboxId": ';
    const dir = await dirWith({
      'credentials.json': damaged,
      [tempOf('credentials.json', await deadPid())]: JSON.stringify(bob),
    });
    await recover(dir);
    expect(await readFile(join(dir, 'credentials.json'), 'utf8')).toBe(damaged);
    const kept = (await readdir(dir)).find((n) => n.startsWith('credentials.json.recovered-'));
    expect(JSON.parse(await readFile(join(dir, kept!), 'utf8'))).toEqual(bob);
  });

  it('never replaces a credentials.json it cannot read (a link), and keeps the recovered key in sight', async () => {
    const elsewhere = await dirWith({ 'real.json': JSON.stringify(alice) });
    const dir = await dirWith({ [tempOf('credentials.json', await deadPid())]: JSON.stringify(bob) });
    await symlink(join(elsewhere, 'real.json'), join(dir, 'credentials.json'));
    await recover(dir);
    expect(JSON.parse(await readFile(join(elsewhere, 'real.json'), 'utf8'))).toEqual(alice);
    expect((await readdir(dir)).some((n) => n.startsWith('credentials.json.recovered-'))).toBe(true);
  });

  it('keeps an unreadable temp for inspection when credentials.json is intact', async () => {
    const temp = tempOf('credentials.json', await deadPid());
    const dir = await dirWith({ 'credentials.json': JSON.stringify(alice), [temp]: '{"apiKey": "amk_cut' });
    expect(await recover(dir)).toEqual([
      `${join(dir, temp)} was left by an interrupted write and cannot be read as credentials; it was kept for you to inspect (credentials.json is intact).`,
    ]);
    expect((await readdir(dir)).sort()).toEqual([temp, 'credentials.json'].sort());
  });

  it('refuses to go on when the only credentials are an unreadable temp', async () => {
    const temp = tempOf('credentials.json', await deadPid());
    const dir = await dirWith({ [temp]: JSON.stringify({ inboxId: 'no key' }) });
    const error = await recover(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailboxError);
    expect(error).toMatchObject({ code: 'credentials_corrupt', details: { path: join(dir, temp) } });
    expect((error as MailboxError).message).toBe(
      `An interrupted write left ${join(dir, temp)}, and it is not complete credentials; it may still hold the apiKey of an inbox created just before.`,
    );
    expect((error as MailboxError).hint).toBe(
      `Open ${join(dir, temp)}: if it contains an apiKey, register with that apiKey (⟦api_key⟧) to restore access; if not, delete the file and run the command again.`,
    );
  });

  it("removes a dead writer's token and state temps, and leaves live writers and other files alone", async () => {
    const dead = await deadPid();
    const files = {
      'credentials.json': JSON.stringify(alice),
      [tempOf('session.jwt', dead)]: 'a.b.c',
      [tempOf('state.json', dead)]: '{}',
      [tempOf('session.jwt', process.pid)]: 'mine',
      [tempOf('capability.jwt', 1)]: 'init is alive',
      [tempOf('credentials.json', process.pid)]: JSON.stringify(bob),
      '.session.jwt.123.TOOSHORT.tmp': 'not a temp name',
      'notes.txt': 'mine',
    };
    const dir = await dirWith(files);
    expect(await recover(dir)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(
      Object.keys(files)
        .filter((n) => !n.includes(`.${dead}.`))
        .sort(),
    );
  });
});
