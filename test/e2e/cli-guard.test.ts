import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { runCliInTerminal, terminalSkipReason } from '../helpers/run-in-terminal.js';
import { startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * The operator's commands as processes: a widening command without a terminal changes nothing and
 * exits 3; at a terminal (a real pty) the operator sees the change and types yes; narrowing needs
 * nobody. Held mail goes out once through `outbox approve` at a terminal; an inbox an agent
 * registers in a new directory starts under the user's rules; new inboxes can be forbidden.
 */

let world: GuardWorld;
const ptySkip = terminalSkipReason();
const userPolicy = (): string => join(world.userConfigDir, 'user-policy.json');
const cli = (args: string[]): Promise<CliRun> => runCli(args, { env: world.env });
const code = (run: CliRun): number => run.code;

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'cli');
});

describe.skipIf(ptySkip !== undefined)('policy commands', () => {
  it('refuses a widening without a terminal (exit 3) and leaves the file byte for byte as it was', async () => {
    expect(code(await cli(['policy', 'set', '--user', '--send', 'allowlist']))).toBe(0);
    const before = await readFile(userPolicy(), 'utf8');
    for (const args of [
      ['policy', 'allow-send', '--user', 'ana@example.org'],
      ['policy', 'set', '--user', '--send', 'open'],
      ['policy', 'set', '--user', '--secret-scan', 'off'],
      ['policy', 'allow-receive', '--user', 'news@example.org'],
    ]) {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(3);
      expect(run.json).toMatchObject({ error: { code: 'operator_required' } });
      expect(run.stderr).toContain('needs the operator at a terminal');
    }
    expect(await readFile(userPolicy(), 'utf8')).toBe(before);
  });

  it('narrows without a terminal: a block-list entry, a lower cap, the secret scan on', async () => {
    for (const args of [
      ['policy', 'block-send', '--user', 'Evil.Test.'],
      ['policy', 'set', '--user', '--max-sends-per-hour', '50'],
      ['policy', 'set', '--user', '--max-sends-per-hour', '20', '--secret-scan', 'on'],
    ])
      expect(code(await cli(args))).toBe(0);
    const stored = JSON.parse(await readFile(userPolicy(), 'utf8')) as { send: Record<string, unknown> };
    expect(stored.send).toMatchObject({ block: ['evil.test'], maxSendsPerHour: 20, secretScan: 'on' });
  });

  it('widens at a terminal once the operator typed yes, after showing the change', async () => {
    const run = await runCliInTerminal(['policy', 'allow-send', '--user', 'Ana@Example.ORG', 'partner.example'], {
      env: world.env,
      answer: 'yes\n',
    });
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('send allow + ana@example.org');
    expect(run.stdout).toContain('type yes to go ahead');
    const stored = JSON.parse(await readFile(userPolicy(), 'utf8')) as { send: { allow: string[] } };
    expect(stored.send.allow).toEqual(['ana@example.org', 'partner.example']);
  });

  it('changes nothing at a terminal when the answer is not yes', async () => {
    const before = await readFile(userPolicy(), 'utf8');
    const run = await runCliInTerminal(['policy', 'set', '--user', '--max-sends-per-hour', 'none'], {
      env: world.env,
      answer: 'no\n',
    });
    expect(run.code).toBe(1);
    expect(await readFile(userPolicy(), 'utf8')).toBe(before);
  });

  it('refuses entries that are no address or domain (exit 2) and changes nothing', async () => {
    const before = await readFile(userPolicy(), 'utf8');
    const run = await cli(['policy', 'block-send', '--user', 'evil.test', 'not an address', '@']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"not an address"');
    expect(await readFile(userPolicy(), 'utf8')).toBe(before);
  });

  it('shows the effective policy with the layer of each rule, and a broken layer by name', async () => {
    const shown = await cli(['policy', 'show', '--credentials-dir', world.alice.dir, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json).toMatchObject({
      version: 1,
      send: {
        modes: [{ value: 'allowlist', from: 'user' }],
        block: [{ entry: 'evil.test', from: 'user' }],
        maxSendsPerHour: { value: 20, from: 'user' },
        secretScan: { value: 'on', from: 'user' },
      },
      layers: [
        { layer: 'machine' },
        { layer: 'user', present: true },
        { layer: 'inbox', path: join(world.alice.dir, 'policy.json'), present: false },
      ],
    });
    const text = await cli(['policy', 'show', '--credentials-dir', world.alice.dir]);
    expect(text.stdout).toContain('modes: allowlist (user)');
    await writeFile(join(world.alice.dir, 'policy.json'), 'not json', { mode: 0o600 });
    const broken = await cli(['policy', 'show', '--credentials-dir', world.alice.dir]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`inbox: ${join(world.alice.dir, 'policy.json')} BROKEN`);
    await writeFile(join(world.alice.dir, 'policy.json'), '{"version": 1}', { mode: 0o600 });
  });
});

describe.skipIf(ptySkip !== undefined)('held mail and outbox approve', () => {
  it("holds a send that needs a yes, sends it once on the operator's approval at a terminal, and says so on a second approval", async () => {
    await world.writeUserPolicy({ send: { mode: 'confirm', allow: [] } });
    const subject = 'Guard CLI: needs a yes';
    const sent = await cli([
      'jmap_request',
      '--ops-file',
      'send_mail',
      '--vars',
      JSON.stringify({ TO: world.address.bob, SUBJECT: subject, BODY: 'x' }),
      '--credentials-dir',
      world.alice.dir,
      '--json',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const held = (sent.json as { awaitingApproval: { outboxId: string }[] }).awaitingApproval[0]!;
    expect((await world.traces(subject)).bob).toEqual([]);
    const list = await cli(['outbox', 'list', '--credentials-dir', world.alice.dir]);
    expect(list.stdout).toContain(`${held.outboxId}  held`);

    const noTerminal = await cli(['outbox', 'approve', held.outboxId, '--credentials-dir', world.alice.dir]);
    expect(noTerminal.code).toBe(3);
    expect((await world.traces(subject)).bob).toEqual([]);

    const approved = await runCliInTerminal(
      ['outbox', 'approve', held.outboxId, '--credentials-dir', world.alice.dir],
      { env: world.env, answer: 'yes\n' },
    );
    expect(approved.code, approved.stdout).toBe(0);
    expect(approved.stdout).toContain(`To: ${world.address.bob}`);
    const arrived = await world.traces(subject);
    expect(arrived.bob).toHaveLength(1);
    expect(arrived.alice.filter((m) => (m.keywords as Record<string, boolean>).$draft)).toEqual([]);

    const again = await runCliInTerminal(['outbox', 'approve', held.outboxId, '--credentials-dir', world.alice.dir], {
      env: world.env,
      answer: 'yes\n',
    });
    expect(again.code).toBe(2);
    expect(again.stdout).toContain('was already sent');
    expect((await world.traces(subject)).bob).toHaveLength(1);
    const log = await cli(['outbox', 'log', '--credentials-dir', world.alice.dir]);
    expect(log.stdout).toMatch(new RegExp(`held .*"${subject}"`));
    expect(log.stdout).toMatch(new RegExp(`operator +approved .*"${subject}"`));
    await world.clearPolicies();
  });

  it('discards held mail without a terminal: the draft goes and it can never be approved', async () => {
    await world.writeUserPolicy({ send: { mode: 'confirm' } });
    const subject = 'Guard CLI: discard me';
    const sent = await cli([
      'jmap_request',
      '--ops-file',
      'send_mail',
      '--vars',
      JSON.stringify({ TO: world.address.bob, SUBJECT: subject, BODY: 'x' }),
      '--credentials-dir',
      world.alice.dir,
      '--json',
    ]);
    const id = (sent.json as { awaitingApproval: { outboxId: string }[] }).awaitingApproval[0]!.outboxId;
    const discarded = await cli(['outbox', 'discard', id, '--credentials-dir', world.alice.dir]);
    expect(discarded.code, discarded.stderr).toBe(0);
    expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
    const approve = await runCliInTerminal(['outbox', 'approve', id, '--credentials-dir', world.alice.dir], {
      env: world.env,
      answer: 'yes\n',
    });
    expect(approve.code).toBe(2);
    expect(approve.stdout).toContain('was discarded');
    await world.clearPolicies();
  });
});

describe('new inboxes', () => {
  it("binds an inbox the agent registers in a new directory by the user's rules", async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const dir = join(world.base, 'agent-made');
    const registered = await cli([
      'register',
      '--username',
      `gnew-${process.pid % 1000}`,
      '--watch',
      'on-demand',
      '--credentials-dir',
      dir,
    ]);
    expect(registered.code, registered.stderr).toBe(0);
    const subject = 'Guard CLI: from a new inbox';
    const refused = await cli([
      'jmap_request',
      '--ops-file',
      'send_mail',
      '--vars',
      JSON.stringify({ TO: 'eve@evil.test', SUBJECT: subject, BODY: 'x' }),
      '--credentials-dir',
      dir,
    ]);
    expect(refused.code).toBe(3);
    expect(refused.json).toMatchObject({ error: { code: 'policy_refused', details: { rule: { layer: 'user' } } } });
    expect((await world.sandbox.outbox()).filter((e) => e.subject === subject)).toEqual([]);
    await world.clearPolicies();
  });

  it('refuses to register or log in to another inbox under new-inboxes off (exit 3), before any proof of work', async () => {
    await world.writeUserPolicy({ newInboxes: 'off' });
    const signups = world.sandbox.stats();
    const dir = join(world.base, 'forbidden');
    const run = await cli([
      'register',
      '--username',
      `gno-${process.pid % 1000}`,
      '--watch',
      'on-demand',
      '--credentials-dir',
      dir,
    ]);
    expect(run.code).toBe(3);
    expect(run.json).toMatchObject({
      error: { code: 'policy_refused', details: { rule: { layer: 'user', rule: 'newInboxes=off' } } },
    });
    const login = await cli([
      'register',
      '--api-key',
      await world.bob.revealApiKey(),
      '--watch',
      'on-demand',
      '--credentials-dir',
      join(world.base, 'forbidden-login'),
    ]);
    expect(login.code).toBe(3);
    expect(world.sandbox.stats()).toEqual(signups);
    const replay = await cli([
      'register',
      '--username',
      world.address.alice.split('@')[0]!,
      '--watch',
      'on-demand',
      '--credentials-dir',
      world.alice.dir,
    ]);
    expect(replay.code, replay.stderr).toBe(0);
    await world.clearPolicies();
  });
});

describe('files', () => {
  it('never shows a byte of an ops_file that is not JSON', async () => {
    const run = await cli(['jmap_request', '--ops-file', '/etc/passwd', '--credentials-dir', world.alice.dir]);
    expect(run.code).toBe(2);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/root:|:x:0/);
  });
});
