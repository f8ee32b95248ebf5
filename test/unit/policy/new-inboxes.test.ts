import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { assertNewInboxAllowed, assertNoWakeRunning } from '../../../src/policy/new-inboxes.js';
import { knownInboxDirs, rememberInboxDir } from '../../../src/policy/records/inbox-dirs.js';
import { anyWakeRunning, markInboxWaking } from '../../../src/policy/records/wake-read-only.js';

let base: string;
let userConfigDir: string;
let machinePath: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'new-inboxes-'));
  userConfigDir = join(base, 'config');
  machinePath = join(base, 'machine-policy.json');
  await mkdir(userConfigDir, { recursive: true, mode: 0o700 });
});
afterEach(() => rm(base, { recursive: true, force: true }));

async function writePolicy(
  dir: string,
  policy: Record<string, unknown> | string,
  file = 'policy.json',
): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, file);
  await writeFile(path, typeof policy === 'string' ? policy : JSON.stringify({ version: 1, ...policy }), {
    mode: 0o600,
  });
  return path;
}

async function refusal(
  scope: Partial<Parameters<typeof assertNewInboxAllowed>[0]> = {},
): Promise<MailboxError | undefined> {
  return assertNewInboxAllowed({ userConfigDir, credentialsDir: join(base, 'new'), machinePath, ...scope }).then(
    () => undefined,
    (error: unknown) => error as MailboxError,
  );
}

describe('newInboxes off in any layer found binds a new directory', () => {
  it('allows a new inbox when no layer says off', async () => {
    await writePolicy(join(base, 'other'), { newInboxes: 'on' });
    await rememberInboxDir(userConfigDir, join(base, 'other'));
    expect(await refusal({ knownDirs: [join(base, 'default')] })).toBeUndefined();
  });

  it("is refused by the machine layer, the user layer and the new directory's own", async () => {
    await writeFile(machinePath, JSON.stringify({ version: 1, newInboxes: 'off' }));
    expect((await refusal())?.details).toEqual({
      rule: { layer: 'machine', path: machinePath, rule: 'newInboxes=off' },
    });
    await rm(machinePath);
    const user = await writePolicy(userConfigDir, { newInboxes: 'off' }, 'user-policy.json');
    expect((await refusal())?.details).toMatchObject({ rule: { layer: 'user', path: user } });
    await rm(user);
    const own = await writePolicy(join(base, 'new'), { newInboxes: 'off' });
    expect((await refusal())?.details).toMatchObject({ rule: { layer: 'inbox', path: own } });
  });

  it("is refused by the default inbox's layer (the user config dir) though the new directory says on", async () => {
    await writePolicy(join(base, 'new'), { newInboxes: 'on' });
    const path = await writePolicy(userConfigDir, { newInboxes: 'off' });
    const error = await refusal();
    expect(error?.code).toBe('policy_refused');
    expect(error?.message).toContain(`inbox layer at ${path}, newInboxes=off`);
    expect(error?.hint).toMatch(/ask your operator/);
  });

  it('is refused by the layer of a directory the process knows of', async () => {
    const path = await writePolicy(join(base, 'configured'), { newInboxes: 'off' });
    expect((await refusal({ knownDirs: [join(base, 'configured')] }))?.message).toContain(path);
    expect(await refusal()).toBeUndefined();
  });

  it("is refused by the layer of an inbox registered before, found in the user's list", async () => {
    const path = await writePolicy(join(base, 'elsewhere', 'carol'), { newInboxes: 'off' });
    expect(await refusal()).toBeUndefined();
    await rememberInboxDir(userConfigDir, join(base, 'elsewhere', 'carol'));
    expect((await refusal())?.message).toContain(path);
  });

  it('is refused by the layer of one inbox of a connected account', async () => {
    await writeFile(join(userConfigDir, 'oauth.json'), '{}', { mode: 0o600 });
    const path = await writePolicy(join(userConfigDir, 'inboxes', 'ops@acme.test'), { newInboxes: 'off' });
    expect((await refusal())?.message).toContain(path);
  });

  it('fails closed on a layer that cannot be read, and on a broken list of directories', async () => {
    const broken = await writePolicy(join(base, 'broken'), '{not json');
    await rememberInboxDir(userConfigDir, join(base, 'broken'));
    expect((await refusal())?.code).toBe('policy_unreadable');
    await rm(broken);
    expect(await refusal()).toBeUndefined();
    await writeFile(join(userConfigDir, 'inbox-dirs.json'), '{"dirs": 5}', { mode: 0o600 });
    const error = await refusal();
    expect(error?.code).toBe('policy_unreadable');
    expect(error?.message).toContain('inbox-dirs.json');
    expect(error?.hint).toBe(
      `The operator fixes or removes ${join(userConfigDir, 'inbox-dirs.json')}; it lists credentials directories, one per inbox, as {"dirs": [...]}.`,
    );
  });
});

describe('the list of inbox directories', () => {
  it('keeps each directory once, absolute, in a private file', async () => {
    await rememberInboxDir(userConfigDir, join(base, 'a'));
    await rememberInboxDir(userConfigDir, join(base, 'b'));
    await rememberInboxDir(userConfigDir, join(base, 'a', '..', 'a'));
    expect(await knownInboxDirs(userConfigDir)).toEqual([join(base, 'a'), join(base, 'b')]);
    expect((await stat(join(userConfigDir, 'inbox-dirs.json'))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(join(userConfigDir, 'inbox-dirs.json'), 'utf8'))).toEqual({
      dirs: [join(base, 'a'), join(base, 'b')],
    });
  });

  it('keeps both of two registrations made at once', async () => {
    await Promise.all([
      rememberInboxDir(userConfigDir, join(base, 'x')),
      rememberInboxDir(userConfigDir, join(base, 'y')),
    ]);
    expect((await knownInboxDirs(userConfigDir)).sort()).toEqual([join(base, 'x'), join(base, 'y')]);
  });
});

describe('what a refusal says it refused', () => {
  it('names a sign-up or login by default and a connected account when that is what was asked', async () => {
    await writeFile(machinePath, JSON.stringify({ version: 1, newInboxes: 'off' }));
    expect((await refusal())?.message).toMatch(/^Not registered: your operator's policy \(machine layer at /);
    expect((await refusal({ action: 'register' }))?.message).toMatch(/^Not registered: /);
    expect((await refusal({ action: 'connect' }))?.message).toMatch(/^Not connected: /);
  });

  it('names the same during a wake', async () => {
    const release = await markInboxWaking(userConfigDir, 'ada@agent-mailbox.test');
    const message = async (action?: 'register' | 'connect') =>
      ((await assertNoWakeRunning(userConfigDir, action).catch((e: unknown) => e)) as MailboxError).message;
    expect(await message()).toMatch(/^Not registered: a wake is running/);
    expect(await message('register')).toMatch(/^Not registered: /);
    expect(await message('connect')).toMatch(/^Not connected: /);
    await release();
  });
});

describe('no register while a wake runs', () => {
  it('sees a live wake of any inbox, and none once it ended', async () => {
    expect(await anyWakeRunning(userConfigDir)).toBe(false);
    await expect(assertNoWakeRunning(userConfigDir)).resolves.toBeUndefined();
    // Other files in the marks' folder are no wake.
    await mkdir(join(userConfigDir, 'wakes-running'), { recursive: true });
    await writeFile(join(userConfigDir, 'wakes-running', 'notes.txt'), 'x');
    expect(await anyWakeRunning(userConfigDir)).toBe(false);
    const release = await markInboxWaking(userConfigDir, 'someone-else@agent-mailbox.test');
    expect(await anyWakeRunning(userConfigDir)).toBe(true);
    const error = await assertNoWakeRunning(userConfigDir).catch((e: unknown) => e as MailboxError);
    expect(error).toMatchObject({ code: 'policy_refused' });
    expect((error as MailboxError).message).toContain('a wake is running');
    expect((error as MailboxError).hint).toBe(
      'Finish reading the mail you were woken for; your operator registers inboxes when no wake runs.',
    );
    expect((error as MailboxError).details).toEqual({ rule: { rule: 'no register during a wake' } });
    await release();
    expect(await anyWakeRunning(userConfigDir)).toBe(false);
  });

  it('does not count a wake whose process died', async () => {
    const marks = join(userConfigDir, 'wakes-running', '.wake-0123456789abcdef01234567-dead.lock');
    await mkdir(marks, { recursive: true });
    await writeFile(
      join(marks, 'owner.json'),
      JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), token: 't', createdAt: new Date().toISOString() }),
    );
    expect(await anyWakeRunning(userConfigDir)).toBe(false);
    // The same mark with a live owner counts: what made the first one void was its dead process.
    await writeFile(
      join(marks, 'owner.json'),
      JSON.stringify({ pid: process.pid, host: hostname(), token: 't', createdAt: new Date().toISOString() }),
    );
    expect(await anyWakeRunning(userConfigDir)).toBe(true);
  });
});
