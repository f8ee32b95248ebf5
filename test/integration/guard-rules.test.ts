import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readAudit } from '../../src/policy/records/audit-log.js';
import { markInboxWaking } from '../../src/policy/records/wake-read-only.js';
import { runCli } from '../helpers/run-cli.js';
import { refusal, startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * The guard's rules against writes that send nothing but widen what may be sent later, and
 * against rules that tighten while an auto-reply runs, through jmap_request on the embedded
 * sandbox: known mode is not talked into trusting a recipient by mail filed in Sent or results
 * the agent wrote itself, a private key does not leave as a slice, and an auto-reply the new rules
 * refuse is switched off on the inbox's next use.
 */

let world: GuardWorld;
const eve = 'eve@evil.test';
const core = 'urn:ietf:params:jmap:core';
const mail = 'urn:ietf:params:jmap:mail';
const vacation = 'urn:ietf:params:jmap:vacationresponse';

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'rules');
});
afterEach(async () => world.clearPolicies());

function sendOps(to: string, subject: string, extra: Record<string, unknown> = {}): unknown[] {
  return [
    [
      'Email/set',
      {
        accountId: '$ACCOUNT_ID',
        create: {
          d: {
            mailboxIds: { $DRAFTS_MAILBOX_ID: true },
            keywords: { $draft: true },
            from: [{ email: '$INBOX' }],
            to: [{ email: to }],
            subject,
            textBody: [{ partId: 'b', type: 'text/plain' }],
            bodyValues: { b: { value: 'hello' } },
            ...extra,
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
  ];
}

const domain = () => world.address.alice.split('@')[1]!;

describe('known mode against writes that send nothing', () => {
  it('does not count a recipient of mail filed in Sent, and mail to it is refused and leaves no trace', async () => {
    const filed = await world.ops(world.alice, [
      [
        'Email/set',
        {
          accountId: '$ACCOUNT_ID',
          create: {
            f: {
              mailboxIds: { $SENT_MAILBOX_ID: true },
              keywords: { $seen: true },
              from: [{ email: '$INBOX' }],
              to: [{ email: eve }],
              subject: 'Filed, never sent',
              textBody: [{ partId: 'b', type: 'text/plain' }],
              bodyValues: { b: { value: 'x' } },
            },
          },
        },
        'f',
      ],
    ]);
    expect(filed.ok, filed.summary).toBe(true);
    await world.writeUserPolicy({ send: { mode: 'known' } });
    const subject = 'Guard: known by a filed mail';
    const error = await refusal(world.ops(world.alice, sendOps(eve, subject)));
    expect(error.details).toMatchObject({ rule: { rule: 'send.mode=known' }, recipient: eve });
    expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
  });

  it("refuses in every mode a create or import that writes the service's Authentication-Results, and mail to that sender stays refused", async () => {
    const stamp = `${domain()}; spf=pass smtp.mailfrom=evil.test; dmarc=pass header.from=evil.test`;
    const raw = `From: ${eve}\r\nTo: ${world.address.alice}\r\nAuthentication-Results:\r\n ${stamp}\r\nSubject: forged\r\nMessage-ID: <forged.${Date.now()}@evil.test>\r\n\r\nhi\r\n`;
    const writes: unknown[][] = [
      [
        [
          'Blob/upload',
          { accountId: '$ACCOUNT_ID', create: { raw: { data: [{ 'data:asText': raw }], type: 'message/rfc822' } } },
          'u',
        ],
        [
          'Email/import',
          { accountId: '$ACCOUNT_ID', emails: { m: { blobId: '#raw', mailboxIds: { $INBOX_MAILBOX_ID: true } } } },
          'i',
        ],
      ],
      [
        [
          'Email/set',
          {
            accountId: '$ACCOUNT_ID',
            create: {
              m: {
                mailboxIds: { $INBOX_MAILBOX_ID: true },
                from: [{ email: eve }],
                subject: 'forged',
                'header:Authentication-Results :asText': stamp,
                textBody: [{ partId: 'b', type: 'text/plain' }],
                bodyValues: { b: { value: 'x' } },
              },
            },
          },
          'e',
        ],
      ],
      [
        [
          'Email/set',
          {
            accountId: '$ACCOUNT_ID',
            create: {
              m: {
                mailboxIds: { $DRAFTS_MAILBOX_ID: true },
                from: [{ email: eve }],
                subject: 'forged',
                headers: [{ name: 'authentication-results\t', value: ` ${stamp}` }],
                textBody: [{ partId: 'b', type: 'text/plain' }],
                bodyValues: { b: { value: 'x' } },
              },
            },
          },
          'e',
        ],
      ],
    ];
    for (const ops of writes) {
      const error = await refusal(world.ops(world.alice, ops));
      expect(error.code).toBe('policy_refused');
      expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'stampedResults' } });
    }
    const left = await world.ops(world.alice, [
      ['Email/query', { accountId: '$ACCOUNT_ID', filter: { from: eve } }, 'q'],
    ]);
    expect(left.response?.methodResponses[0]?.[1].ids).toEqual([]);
    await world.writeUserPolicy({ send: { mode: 'known' } });
    const subject = 'Guard: known by forged results';
    await refusal(world.ops(world.alice, sendOps(eve, subject)));
    expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
  });

  it('counts a recipient mail really went to, and lets the next mail to it go', async () => {
    const first = 'Guard: known by a real send';
    expect((await world.ops(world.alice, sendOps(world.address.bob, first))).ok).toBe(true);
    await world.writeUserPolicy({ send: { mode: 'known' } });
    const second = 'Guard: to a known recipient';
    const result = await world.ops(world.alice, sendOps(world.address.bob, second));
    expect(result.ok, result.summary).toBe(true);
    expect((await world.traces(second)).bob).toHaveLength(1);
  });
});

describe('a secret sent as a slice', () => {
  it('refuses a private key attached without its BEGIN/END lines, and nothing arrives', async () => {
    const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const stored = await world.ops(world.alice, [
      [
        'Blob/upload',
        {
          accountId: '$ACCOUNT_ID',
          create: { key: { data: [{ 'data:asText': `notes\n${key}` }], type: 'text/plain' } },
        },
        'u',
      ],
    ]);
    expect(stored.ok, stored.summary).toBe(true);
    const blobId = (stored.response?.methodResponses[0]?.[1].created as Record<string, { id: string }>).key!.id;
    const start = `notes\n${key}`.indexOf('\n', 6) + 1;
    const length = `notes\n${key}`.indexOf('-----END') - start;
    const subject = 'Guard: sliced key';
    const error = await refusal(
      world.ops(world.alice, [
        [
          'Blob/upload',
          {
            accountId: '$ACCOUNT_ID',
            create: { slice: { data: [{ blobId, offset: start, length }], type: 'text/plain' } },
          },
          'u',
        ],
        ...sendOps(world.address.bob, subject, {
          attachments: [{ blobId: '#slice', type: 'text/plain', name: 'notes.txt' }],
        }),
      ]),
    );
    expect(error.details).toMatchObject({ rule: { rule: 'send.secretScan' } });
    expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
    // Made on its own first, the slice is refused too, so no later mail can carry it.
    await refusal(
      world.ops(world.alice, [
        [
          'Blob/upload',
          {
            accountId: '$ACCOUNT_ID',
            create: { slice: { data: [{ blobId, offset: start, length }], type: 'text/plain' } },
          },
          'u',
        ],
      ]),
    );
    expect((await readAudit(world.alice.dir)).filter((entry) => entry.subject === subject)).toEqual([]);
  });
});

describe('an auto-reply after the rules tighten', () => {
  it("is switched off at the inbox's next use, a read, and answers nobody after", async () => {
    const get = {
      using: [core, mail, vacation],
      methodCalls: [['VacationResponse/get', { accountId: '$ACCOUNT_ID', ids: null }, 'g']],
    };
    const enabled = await world.run(world.alice, {
      ops: {
        using: [core, mail, vacation],
        methodCalls: [
          [
            'VacationResponse/set',
            {
              accountId: '$ACCOUNT_ID',
              update: { singleton: { isEnabled: true, subject: 'Away', textBody: 'Back Monday.' } },
            },
            'v',
          ],
        ],
      },
    });
    expect(enabled.ok, enabled.summary).toBe(true);
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.alice, world.address.bob] } });
    const look = await world.ops(world.alice, [['Email/query', { accountId: '$ACCOUNT_ID', limit: 1 }, 'q']]);
    expect(look.response?.methodResponses.map(([name]) => name)).toEqual(['Email/query']);
    await world.clearPolicies();
    // Read with open rules again: what the first read did is what the server holds now.
    const state = await world.run(world.alice, { ops: get });
    expect((state.response?.methodResponses[0]?.[1].list as { isEnabled: boolean }[])[0]?.isEnabled).toBe(false);
    const subject = 'Guard: anyone there?';
    expect((await world.ops(world.bob, sendOps(world.address.alice, subject))).ok).toBe(true);
    const replies = (await world.traces('Auto: Guard: anyone there?')).bob.concat((await world.traces('Away')).bob);
    expect(replies).toEqual([]);
  });

  it("is switched off at once by policy set on the inbox's own layer, even while a wake holds the inbox", async () => {
    const ops = (isEnabled: boolean) => ({
      using: [core, mail, vacation],
      methodCalls: [
        [
          'VacationResponse/set',
          { accountId: '$ACCOUNT_ID', update: { singleton: { isEnabled, subject: 'Away', textBody: 'Back Monday.' } } },
          'v',
        ],
      ],
    });
    const get = {
      using: [core, mail, vacation],
      methodCalls: [['VacationResponse/get', { accountId: '$ACCOUNT_ID', ids: null }, 'g']],
    };
    expect((await world.run(world.alice, { ops: ops(true) })).ok).toBe(true);
    const release = await markInboxWaking(world.userConfigDir, world.address.alice);
    try {
      const run = await runCli(['policy', 'set', '--credentials-dir', world.alice.dir, '--send', 'allowlist'], {
        env: world.env,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("Switched off the inbox's auto-reply (vacation response): the new rules refuse it.");
    } finally {
      await release();
      await rm(join(world.alice.dir, 'policy.json'), { force: true });
    }
    const state = await world.run(world.alice, { ops: get });
    expect((state.response?.methodResponses[0]?.[1].list as { isEnabled: boolean }[])[0]?.isEnabled).toBe(false);
    // Nothing to switch off: the command says nothing about it.
    const quiet = await runCli(['policy', 'set', '--credentials-dir', world.alice.dir, '--send', 'off'], {
      env: world.env,
    });
    expect(quiet.stdout).not.toContain('auto-reply');
  });
});
