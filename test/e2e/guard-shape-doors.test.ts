import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/policy/records/audit-log.js';
import { connectMcp, resultText, structured } from '../helpers/connect-mcp.js';
import { startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';
import { runCli } from '../helpers/run-cli.js';

/**
 * The batches whose meaning only the server settles (a creation id defined twice, a Bcc hidden in
 * a header name) and methods the guard does not know, through both built doors: the CLI's inline
 * ops and the MCP tool. Each is refused with what could not be judged, reaches nobody, and is
 * recorded as refused.
 */

let world: GuardWorld;
const eve = 'eve@evil.test';

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'doors');
});
afterEach(async () => world.clearPolicies());

function draft(subject: string, to: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mailboxIds: { $DRAFTS_MAILBOX_ID: true },
    from: [{ email: '$INBOX' }],
    to: [{ email: to }],
    subject,
    textBody: [{ partId: 'b', type: 'text/plain' }],
    bodyValues: { b: { value: 'hello' } },
    ...extra,
  };
}

const submit = [
  'EmailSubmission/set',
  { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#d', identityId: '$IDENTITY_ID' } } },
  's',
];

function twiceOps(subject: string): unknown[] {
  return [
    ['Email/set', { accountId: '$ACCOUNT_ID', create: { d: draft(subject, eve) } }, 'e1'],
    [
      'Email/set',
      {
        accountId: '$ACCOUNT_ID',
        create: { d: draft('Doors: decoy', world.address.bob, { mailboxIds: { 'no-such-mailbox': true } }) },
      },
      'e2',
    ],
    submit,
  ];
}

async function expectNothingLeft(subject: string): Promise<void> {
  expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
  const audit = await readAudit(world.alice.dir);
  expect(audit.filter((entry) => entry.subject === subject && entry.verdict === 'sent')).toEqual([]);
  expect(audit.at(-1)).toMatchObject({ verdict: 'refused', recipients: [] });
}

describe('through the CLI', () => {
  it('refuses inline ops that define a creation id twice, exit code and message naming the id', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const subject = 'Doors: CLI twice';
    const run = await runCli(
      ['jmap_request', '--ops', JSON.stringify(twiceOps(subject)), '--credentials-dir', world.alice.dir, '--json'],
      { env: world.env },
    );
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.json).toMatchObject({
      error: { code: 'policy_refused', details: { rule: { layer: 'default', rule: 'unjudgeable' } } },
    });
    expect(JSON.stringify(run.json)).toContain('the creation id \\"d\\" is defined twice');
    await expectNothingLeft(subject);
  });

  it('refuses a method the guard does not know outside open mode, and names it', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const run = await runCli(
      [
        'jmap_request',
        '--ops',
        JSON.stringify([['Calendar/set', { accountId: '$ACCOUNT_ID', create: { c: {} } }, 'c']]),
        '--credentials-dir',
        world.alice.dir,
        '--json',
      ],
      { env: world.env },
    );
    expect(run.json).toMatchObject({
      error: { code: 'policy_refused', details: { rule: { layer: 'user', rule: 'send.mode=allowlist' } } },
    });
    expect(JSON.stringify(run.json)).toContain('Calendar/set cannot be judged by the guard');
    expect((await readAudit(world.alice.dir)).at(-1)).toMatchObject({ verdict: 'refused', note: 'Calendar/set' });
  });
});

describe('through the MCP tool', () => {
  it('refuses a Bcc hidden behind a no-break space and a creation id defined twice, in open mode', async () => {
    await world.writeInboxPolicy(world.alice.dir, { send: { block: ['evil.test'] } });
    const c = await connectMcp({ env: { ...world.env, AGENT_MAILBOX_CREDENTIALS_DIR: world.alice.dir } });
    try {
      const hidden = 'Doors: MCP header name';
      const first = await c.client.callTool(
        {
          name: 'jmap_request',
          arguments: {
            ops: [
              [
                'Email/set',
                {
                  accountId: '$ACCOUNT_ID',
                  create: { d: draft(hidden, world.address.bob, { 'header:Bcc\u00a0': ` ${eve}` }) },
                },
                'e',
              ],
              submit,
            ],
          },
        },
        undefined,
        { timeout: 60_000 },
      );
      expect((first as { isError?: boolean }).isError).toBe(true);
      expect(resultText(first)).toContain('"Bcc\\u{A0}"');
      expect(structured(first)).toMatchObject({ error: { code: 'policy_refused' } });
      await expectNothingLeft(hidden);
      const twice = 'Doors: MCP twice';
      const second = await c.client.callTool({ name: 'jmap_request', arguments: { ops: twiceOps(twice) } }, undefined, {
        timeout: 60_000,
      });
      expect(resultText(second)).toContain('is defined twice');
      await expectNothingLeft(twice);
    } finally {
      await c.close();
    }
  });
});
