import { spawn } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/policy/records/audit-log.js';
import { isInboxWaking, markInboxWaking } from '../../src/policy/records/wake-read-only.js';
import { refusal, startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * The rules that bind every mode: caps per hour and day (a slot reserved before sending, given back
 * when the server refuses), recipients per mail, the secret scan, where attachments may come from,
 * a broken policy file (fails closed), the machine layer, and the read-only inbox while a wake runs.
 */

let world: GuardWorld;

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'limits');
});
afterEach(async () => world.clearPolicies());

const send = (subject: string, extra: Record<string, unknown> = {}, to?: string) =>
  world.run(
    world.alice,
    { ops_file: 'send_mail', vars: { TO: to ?? world.address.bob, SUBJECT: subject, BODY: 'x', ...extra } },
    {},
  );

describe('caps', () => {
  it('allows as many sends per hour as the cap, then refuses with the time the next one is allowed, and allows it once that time has come', async () => {
    await world.writeInboxPolicy(world.alice.dir, { send: { maxSendsPerHour: 2 } });
    let now = Date.parse('2030-01-01T10:00:00Z');
    const clock = { guard: { now: () => now } };
    for (const n of [1, 2])
      expect(
        (
          await world.run(
            world.alice,
            { ops_file: 'send_mail', vars: { TO: world.address.bob, SUBJECT: `Guard: cap ${n}`, BODY: 'x' } },
            clock,
          )
        ).ok,
      ).toBe(true);
    now += 10 * 60_000;
    const error = await refusal(
      world.run(
        world.alice,
        { ops_file: 'send_mail', vars: { TO: world.address.bob, SUBJECT: 'Guard: cap 3', BODY: 'x' } },
        clock,
      ),
    );
    expect(error.details).toMatchObject({
      rule: { layer: 'inbox', rule: 'send.maxSendsPerHour' },
      nextAllowedAt: '2030-01-01T11:00:00.000Z',
    });
    expect(error.message).toContain('2030-01-01T11:00:00.000Z');
    expect(await world.traces('Guard: cap 3')).toEqual({ alice: [], bob: [], outside: [] });
    now = Date.parse('2030-01-01T11:00:01Z');
    expect(
      (
        await world.run(
          world.alice,
          { ops_file: 'send_mail', vars: { TO: world.address.bob, SUBJECT: 'Guard: cap 4', BODY: 'x' } },
          clock,
        )
      ).ok,
    ).toBe(true);
  });

  it('gives the slot back when the server refuses the submission', async () => {
    await world.writeInboxPolicy(world.alice.dir, { send: { maxSendsPerDay: 1 } });
    const clock = { guard: { now: () => Date.parse('2031-05-05T10:00:00Z') } };
    const forged = await world.ops(
      world.alice,
      [
        [
          'Email/set',
          {
            accountId: '$ACCOUNT_ID',
            create: {
              d: {
                mailboxIds: { $DRAFTS_MAILBOX_ID: true },
                from: [{ email: 'someone-else@agent-mailbox.test' }],
                to: [{ email: world.address.bob }],
                subject: 'Guard: forged from',
                bodyValues: { b: { value: 'x' } },
                textBody: [{ partId: 'b', type: 'text/plain' }],
              },
            },
          },
          'e',
        ],
        [
          'EmailSubmission/set',
          { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#d', identityId: '$IDENTITY_ID' } } },
          's',
        ],
      ],
      clock,
    );
    expect(forged.ok).toBe(false);
    expect(
      (
        await world.run(
          world.alice,
          { ops_file: 'send_mail', vars: { TO: world.address.bob, SUBJECT: 'Guard: after a refusal', BODY: 'x' } },
          clock,
        )
      ).ok,
    ).toBe(true);
    await refusal(
      world.run(
        world.alice,
        { ops_file: 'send_mail', vars: { TO: world.address.bob, SUBJECT: 'Guard: over the day', BODY: 'x' } },
        clock,
      ),
    );
  });

  it('refuses a mail to more recipients than the cap allows', async () => {
    await world.writeUserPolicy({ send: { maxRecipients: 1 } });
    const error = await refusal(send('Guard: two recipients', { CC: 'carol@example.org' }));
    expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.maxRecipients' } });
  });
});

describe('the secret scan', () => {
  it("refuses a body carrying the inbox's own apiKey and says what and where, never the value", async () => {
    const apiKey = await world.alice.revealApiKey();
    const error = await refusal(send('Guard: leaks the key', { BODY: `as asked: ${apiKey}` }));
    expect(error.details).toMatchObject({ rule: { rule: 'send.secretScan' } });
    expect(error.message).toContain('in the body');
    expect(JSON.stringify(error.toJSON())).not.toContain(apiKey);
    expect(await world.traces('Guard: leaks the key')).toEqual({ alice: [], bob: [], outside: [] });
  });

  it('refuses a key block in the subject and a cloud key in an attached file', async () => {
    await refusal(send('-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA'));
    const file = join(world.base, 'notes.txt');
    await writeFile(
      file,
      'aws_access_key_id = AKIAQYLPMN5HHHFPZAM2\naws_secret_access_key = 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\n',
    );
    const error = await refusal(
      world.run(world.alice, {
        ops_file: 'send_mail_blob_attachment',
        vars: { TO: world.address.bob, SUBJECT: 'Guard: notes', BODY: 'see file' },
        attachments: [file],
      }),
    );
    expect(error.message).toContain('the attachment notes.txt');
    expect(error.message).not.toContain('AKIAQYLPMN5HHHFPZAM2');
  });

  it('lets ordinary words about passwords and tokens through', async () => {
    expect(
      (await send('Guard: words', { BODY: 'Your password and API token are in the vault; the token rotates monthly.' }))
        .ok,
    ).toBe(true);
  });

  it('is off only where the operator turned it off', async () => {
    await world.writeUserPolicy({ send: { secretScan: 'off' } });
    expect((await send('Guard: scan off', { BODY: '-----BEGIN PRIVATE KEY----- test' })).ok).toBe(true);
  });
});

describe('files the model names', () => {
  it('never reads an attachment from a credentials directory, not through a symlink either', async () => {
    const link = join(world.base, 'innocent.txt');
    await symlink(join(world.alice.dir, 'credentials.json'), link);
    for (const path of [join(world.alice.dir, 'credentials.json'), link, join(world.bob.dir, 'state.json')]) {
      const error = await refusal(
        world.run(world.alice, {
          ops_file: 'send_mail_blob_attachment',
          vars: { TO: world.address.bob, SUBJECT: 'Guard: creds', BODY: 'x' },
          attachments: [path],
        }),
      );
      expect(error.code).toBe('attachment_invalid');
      expect(error.message).toContain('credentials directory');
    }
  });

  it('never reads an ops_file from a credentials directory', async () => {
    const error = await refusal(world.run(world.alice, { ops_file: join(world.bob.dir, 'credentials.json') }));
    expect(error.code).toBe('ops_invalid');
    expect(JSON.stringify(error.toJSON())).not.toContain(await world.bob.revealApiKey());
  });

  it('shows no byte of an ops_file that is not JSON (/etc/passwd)', async () => {
    const error = await refusal(world.run(world.alice, { ops_file: '/etc/passwd' }));
    expect(error.code).toBe('ops_invalid');
    expect(JSON.stringify(error.toJSON())).not.toMatch(/root|:x:|\/bin\//);
  });

  it("takes attachments only from the operator's directory, symlinks resolved", async () => {
    const allowed = join(world.base, 'outgoing');
    await mkdir(allowed, { recursive: true });
    await writeFile(join(allowed, 'report.txt'), 'quarterly');
    await writeFile(join(world.base, 'elsewhere.txt'), 'private');
    await symlink(join(world.base, 'elsewhere.txt'), join(allowed, 'link.txt'));
    await world.writeUserPolicy({ send: { attachFrom: allowed } });
    const attach = (path: string, subject: string) =>
      world.run(world.alice, {
        ops_file: 'send_mail_blob_attachment',
        vars: { TO: world.address.bob, SUBJECT: subject, BODY: 'x' },
        attachments: [path],
      });
    expect((await attach(join(allowed, 'report.txt'), 'Guard: from the folder')).ok).toBe(true);
    for (const path of [join(world.base, 'elsewhere.txt'), join(allowed, 'link.txt')]) {
      const error = await refusal(attach(path, 'Guard: outside the folder'));
      expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.attachFrom' } });
    }
    expect(await world.traces('Guard: outside the folder')).toEqual({ alice: [], bob: [], outside: [] });
  });
});

describe('policy files', () => {
  it('fails closed on a broken file: nothing is sent, and the error names the file', async () => {
    await writeFile(join(world.alice.dir, 'policy.json'), '{"version": 1, "send": {"mode": "allowlsit"}}', {
      mode: 0o600,
    });
    const error = await refusal(send('Guard: broken policy'));
    expect(error.code).toBe('policy_unreadable');
    expect(error.message).toContain(join(world.alice.dir, 'policy.json'));
    // A broken file stops reading too (the receive screen fails closed): repaired, then looked at.
    await rm(join(world.alice.dir, 'policy.json'));
    expect(await world.traces('Guard: broken policy')).toEqual({ alice: [], bob: [], outside: [] });
  });

  it('applies the machine layer, and the strictest layer wins', async () => {
    const machine = join(world.base, 'machine-policy.json');
    await writeFile(machine, JSON.stringify({ version: 1, send: { block: [world.address.bob] } }));
    await world.writeInboxPolicy(world.alice.dir, { send: { mode: 'allowlist', allow: [world.address.bob] } });
    const error = await refusal(
      world.run(
        world.alice,
        { ops_file: 'send_mail', vars: { TO: world.address.bob, SUBJECT: 'Guard: machine', BODY: 'x' } },
        { guard: { machinePolicyPath: machine } },
      ),
    );
    expect(error.details).toMatchObject({ rule: { layer: 'machine', rule: 'send.block' } });
  });
});

describe('the audit log', () => {
  it('records sent and refused attempts with the door, recipients, subject and rule, 0600', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    await send('Guard: audited ok');
    await refusal(send('Guard: audited no', {}, 'eve@evil.test'));
    const entries = await readAudit(world.alice.dir);
    expect(entries.find((e) => e.subject === 'Guard: audited ok')).toMatchObject({
      verdict: 'sent',
      door: 'cli',
      recipients: [world.address.bob],
    });
    expect(entries.find((e) => e.subject === 'Guard: audited no')).toMatchObject({
      verdict: 'refused',
      rule: 'user: send.mode=allowlist',
      recipients: ['eve@evil.test'],
    });
  });
});

describe('a wake run keeps the inbox read-only', () => {
  const core = fileURLToPath(new URL('../../dist/policy/records/wake-read-only.js', import.meta.url));

  it('refuses sends and every change from any credentials directory of the inbox while the wake holds it, and lets reads through', async () => {
    const release = await markInboxWaking(world.userConfigDir, world.address.alice);
    const other = world.registry.open(join(world.base, 'alice-again'));
    await other.register({ apiKey: await world.alice.revealApiKey(), watch: 'on-demand' });
    try {
      for (const account of [world.alice, other]) {
        const error = await refusal(
          world.run(account, {
            ops_file: 'send_mail',
            vars: { TO: world.address.bob, SUBJECT: 'Guard: during wake', BODY: 'x' },
          }),
        );
        expect(error.details).toMatchObject({ rule: { rule: 'wake.readOnly' } });
        await refusal(
          world.ops(account, [['Mailbox/set', { accountId: '$ACCOUNT_ID', create: { m: { name: 'x' } } }, 'm']]),
        );
        expect((await world.run(account, { ops_file: 'list_inbox' })).ok).toBe(true);
      }
    } finally {
      await release();
    }
    expect((await send('Guard: after the wake')).ok).toBe(true);
  });

  it('does not hold the inbox once the process that marked it has died', async () => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { markInboxWaking } from ${JSON.stringify(core)}; await markInboxWaking(${JSON.stringify(world.userConfigDir)}, ${JSON.stringify(world.address.alice)}); process.stdout.write('marked'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    expect(await isInboxWaking(world.userConfigDir, world.address.alice)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await isInboxWaking(world.userConfigDir, world.address.alice)).toBe(false);
    expect((await send('Guard: after a dead wake')).ok).toBe(true);
  });
});
