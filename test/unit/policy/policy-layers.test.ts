import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import {
  assertUsable,
  layerPath,
  loadPolicyLayers,
  machinePolicyPath,
  machinePolicyPathFor,
  parsePolicyText,
  policyPaths,
  type LoadedLayer,
} from '../../../src/policy/policy-layers.js';

/**
 * Where each layer of the operator's policy is read from, and what a file that cannot be used
 * becomes: an error naming the file and what is wrong with it, which every judgement under it
 * throws (fail closed) — never an empty policy.
 */

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'policy-layers-'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

let n = 0;
async function folder(): Promise<string> {
  n += 1;
  const dir = join(base, `case-${n}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

describe('policyPaths and layerPath', () => {
  it("reads the machine layer from its fixed path unless a test names another, and the others beside the user's config and the inbox", () => {
    expect(machinePolicyPath).toBe('/etc/agent-mailbox/policy.json');
    const paths = policyPaths({ userConfigDir: '/home/ada/.config/agent-mailbox', inboxDir: '/home/ada/inbox' });
    expect(paths).toEqual({
      machine: '/etc/agent-mailbox/policy.json',
      user: '/home/ada/.config/agent-mailbox/user-policy.json',
      inboxDir: '/home/ada/inbox',
    });
    expect(layerPath(paths, 'machine')).toBe('/etc/agent-mailbox/policy.json');
    expect(layerPath(paths, 'user')).toBe('/home/ada/.config/agent-mailbox/user-policy.json');
    expect(layerPath(paths, 'inbox')).toBe('/home/ada/inbox/policy.json');
    const noInbox = policyPaths({ userConfigDir: '/c', machinePath: '/m.json' });
    expect(noInbox).toEqual({ machine: '/m.json', user: '/c/user-policy.json' });
    expect(layerPath(noInbox, 'inbox')).toBeUndefined();
  });
});

describe('the machine layer per platform', () => {
  it('is /etc/agent-mailbox on Linux and macOS and under ProgramData on Windows', () => {
    expect(machinePolicyPathFor('linux')).toBe('/etc/agent-mailbox/policy.json');
    expect(machinePolicyPathFor('darwin')).toBe('/etc/agent-mailbox/policy.json');
    expect(machinePolicyPathFor('freebsd')).toBe('/etc/agent-mailbox/policy.json');
    expect(machinePolicyPathFor('win32')).toBe('C:\\ProgramData\\agent-mailbox\\policy.json');
    expect(policyPaths({ userConfigDir: '/c', platform: 'win32' }).machine).toBe(
      'C:\\ProgramData\\agent-mailbox\\policy.json',
    );
    expect(policyPaths({ userConfigDir: '/c', platform: 'darwin' }).machine).toBe('/etc/agent-mailbox/policy.json');
    expect(policyPaths({ userConfigDir: '/c' }).machine).toBe(machinePolicyPathFor(process.platform));
  });

  it('stays where it is when the agent sets ProgramData, ALLUSERSPROFILE or SystemDrive for its own calls', () => {
    const names = ['ProgramData', 'PROGRAMDATA', 'ALLUSERSPROFILE', 'SystemDrive'] as const;
    const saved = names.map((name) => [name, process.env[name]] as const);
    try {
      for (const name of names) process.env[name] = name === 'SystemDrive' ? 'Z:' : 'C:\\Users\\agent\\fake';
      expect(machinePolicyPathFor('win32')).toBe('C:\\ProgramData\\agent-mailbox\\policy.json');
      expect(policyPaths({ userConfigDir: '/c', platform: 'win32' }).machine).toBe(
        'C:\\ProgramData\\agent-mailbox\\policy.json',
      );
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('loadPolicyLayers', () => {
  it('reads machine, user and inbox in that order, an absent file as present: false with no rules', async () => {
    const dir = await folder();
    const machine = join(dir, 'machine.json');
    await writeFile(machine, JSON.stringify({ version: 1, send: { block: ['evil.test'] } }), { mode: 0o644 });
    const layers = await loadPolicyLayers(
      policyPaths({ userConfigDir: join(dir, 'config'), inboxDir: join(dir, 'inbox'), machinePath: machine }),
    );
    expect(layers).toEqual([
      { layer: 'machine', path: machine, present: true, policy: { version: 1, send: { block: ['evil.test'] } } },
      { layer: 'user', path: join(dir, 'config', 'user-policy.json'), present: false, policy: { version: 1 } },
      { layer: 'inbox', path: join(dir, 'inbox', 'policy.json'), present: false, policy: { version: 1 } },
    ]);
    // The machine layer is root's and world-readable: read as it is, its mode left alone.
    expect((await stat(machine)).mode & 0o777).toBe(0o644);
    expect(
      (await loadPolicyLayers(policyPaths({ userConfigDir: dir, machinePath: machine }))).map((l) => l.layer),
    ).toEqual(['machine', 'user']);
  });

  it('takes a machine path under a file as no machine layer', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'plain'), 'x');
    const [machine] = await loadPolicyLayers(
      policyPaths({ userConfigDir: dir, machinePath: join(dir, 'plain', 'policy.json') }),
    );
    expect(machine).toMatchObject({ layer: 'machine', present: false, policy: { version: 1 } });
    expect(machine!.error).toBeUndefined();
  });

  it('keeps a layer it cannot read as present with an error naming the file, and judging under it throws that error', async () => {
    const dir = await folder();
    const machine = join(dir, 'machine-dir');
    await mkdir(machine);
    const layers = await loadPolicyLayers(policyPaths({ userConfigDir: dir, machinePath: machine }));
    const [broken] = layers;
    expect(broken).toMatchObject({ layer: 'machine', path: machine, present: true, policy: { version: 1 } });
    expect(broken!.error).toBeInstanceOf(MailboxError);
    expect(broken!.error!.code).toBe('policy_unreadable');
    expect(broken!.error!.message).toMatch(
      new RegExp(
        `^The operator's policy file ${machine} cannot be used \\(.*EISDIR.*\\); until it can, nothing is sent or read under it\\.$`,
      ),
    );
    expect(broken!.error!.hint).toBe(
      'Tell your operator: the policy file is theirs to repair (`policy show` names each file and what is wrong with it).',
    );
    expect(() => assertUsable(layers)).toThrow(broken!.error!);
  });

  it('takes a layer whose path cannot even be looked at as broken, never as absent', async () => {
    const dir = await folder();
    await symlink('loop', join(dir, 'loop'));
    const machine = join(dir, 'loop', 'policy.json');
    const [layer] = await loadPolicyLayers(policyPaths({ userConfigDir: dir, machinePath: machine }));
    expect(layer).toMatchObject({ layer: 'machine', present: true });
    expect(layer!.error?.code).toBe('policy_unreadable');
    expect(layer!.error?.message).toContain(machine);
  });

  it("names the policy file, in the policy's own words, when a private layer is a link it will not follow", async () => {
    const dir = await folder();
    await writeFile(join(dir, 'elsewhere.json'), JSON.stringify({ version: 1 }), { mode: 0o600 });
    await symlink(join(dir, 'elsewhere.json'), join(dir, 'user-policy.json'));
    const [, user] = await loadPolicyLayers(policyPaths({ userConfigDir: dir, machinePath: join(dir, 'none.json') }));
    expect(user!.error?.code).toBe('policy_unreadable');
    expect(user!.error?.message).toMatch(
      new RegExp(`^The operator's policy file ${join(dir, 'user-policy.json')} cannot be used \\(.*symbolic link.*\\)`),
    );
  });

  it('sees the new rules of a machine layer that is a link, as soon as its target changes', async () => {
    const dir = await folder();
    const target = join(dir, 'managed.json');
    await writeFile(target, JSON.stringify({ version: 1, send: { mode: 'open' } }), { mode: 0o644 });
    const machine = join(dir, 'policy.json');
    await symlink(target, machine);
    const paths = policyPaths({ userConfigDir: dir, machinePath: machine });
    expect((await loadPolicyLayers(paths))[0]!.policy.send?.mode).toBe('open');
    await writeFile(target, JSON.stringify({ version: 1, send: { mode: 'off' } }), { mode: 0o644 });
    expect((await loadPolicyLayers(paths))[0]!.policy.send?.mode).toBe('off');
  });

  it('says once, naming the file, what is wrong with a layer that is not a valid policy', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'user-policy.json'), '{"version": 1,', { mode: 0o600 });
    const [, user] = await loadPolicyLayers(policyPaths({ userConfigDir: dir, machinePath: join(dir, 'none.json') }));
    expect(user!.error?.message).toBe(
      `The operator's policy file ${join(dir, 'user-policy.json')} cannot be used (it is not JSON); until it can, nothing is sent or read under it.`,
    );
  });

  it('tightens a private layer left readable by others, and reads it', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'user-policy.json'), JSON.stringify({ version: 1, newInboxes: 'off' }), { mode: 0o644 });
    await chmod(join(dir, 'user-policy.json'), 0o644);
    const [, user] = await loadPolicyLayers(policyPaths({ userConfigDir: dir, machinePath: join(dir, 'none.json') }));
    expect(user).toMatchObject({ present: true, policy: { newInboxes: 'off' } });
    expect((await stat(join(dir, 'user-policy.json'))).mode & 0o777).toBe(0o600);
  });

  it('shares a layer read earlier only frozen, so no caller can change the rules another call sees', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'user-policy.json'), JSON.stringify({ version: 1, send: { allow: ['friends.test'] } }), {
      mode: 0o600,
    });
    const paths = policyPaths({ userConfigDir: dir, machinePath: join(dir, 'none.json') });
    await loadPolicyLayers(paths);
    const [, user] = await loadPolicyLayers(paths);
    expect(() => user!.policy.send!.allow!.push('evil.test')).toThrow(TypeError);
    const [, again] = await loadPolicyLayers(paths);
    expect(again!.policy.send!.allow).toEqual(['friends.test']);
  });
});

describe('assertUsable', () => {
  const ok = (layer: LoadedLayer['layer']): LoadedLayer => ({
    layer,
    path: `/${layer}.json`,
    present: true,
    policy: { version: 1 },
  });
  it("passes layers that all read well, and throws the first broken one's error", () => {
    expect(() => assertUsable([ok('machine'), ok('user')])).not.toThrow();
    const first = new MailboxError({ code: 'policy_unreadable', message: 'user broken', hint: 'h' });
    const second = new MailboxError({ code: 'policy_unreadable', message: 'inbox broken', hint: 'h' });
    expect(() =>
      assertUsable([ok('machine'), { ...ok('user'), error: first }, { ...ok('inbox'), error: second }]),
    ).toThrow('user broken');
  });
});

describe('parsePolicyText', () => {
  const unusable = (text: string): string => {
    try {
      parsePolicyText(text, '/p.json');
    } catch (error) {
      expect(error).toMatchObject({ code: 'policy_unreadable' });
      return (error as Error).message;
    }
    throw new Error('parsed');
  };

  it('says a file that is not JSON is not JSON', () => {
    expect(unusable('{"version": 1,')).toBe(
      "The operator's policy file /p.json cannot be used (it is not JSON); until it can, nothing is sent or read under it.",
    );
  });

  it('names every rule that is wrong by its path, and the top level by name', () => {
    expect(unusable('{"version": 1, "send": {"mode": "allowlsit", "maxRecipients": -1}}')).toMatch(
      /\(send\.mode: .+; send\.maxRecipients: .+\)/,
    );
    expect(unusable('[]')).toMatch(/\(\(top level\): /);
    expect(unusable('{"version": 1, "sned": {}}')).toMatch(/\(\(top level\): .*sned/);
  });

  it('returns the rules of a sound file as written', () => {
    expect(parsePolicyText('{"version": 1, "send": {"mode": "known", "maxSendsPerHour": 0}}', '/p.json')).toEqual({
      version: 1,
      send: { mode: 'known', maxSendsPerHour: 0 },
    });
  });
});
