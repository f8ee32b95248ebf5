import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refusal, startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * The operator's send rules against a model that controls its next request: every place a
 * recipient can hide (envelope, Bcc, raw header forms, groups, display names), look-alike domains
 * and case, earlier drafts, several submissions in one batch and result references. A refused
 * batch leaves nothing on the server: no draft, nothing in Sent, nothing received inside or out.
 */

let world: GuardWorld;
const eve = 'eve@evil.test';

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'rcpt');
});
afterEach(async () => world.clearPolicies());

/** A draft and its submission in one batch, as a model would write it by hand. */
function sendOps(subject: string, email: Record<string, unknown>, submission: Record<string, unknown> = {}): unknown[] {
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
            subject,
            textBody: [{ partId: 'b', type: 'text/plain' }],
            bodyValues: { b: { value: 'hello' } },
            ...email,
          },
        },
      },
      'e',
    ],
    [
      'EmailSubmission/set',
      { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#d', identityId: '$IDENTITY_ID', ...submission } } },
      's',
    ],
  ];
}

async function expectNoTrace(subject: string): Promise<void> {
  expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
}

async function allowOnlyBob(): Promise<void> {
  await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
}

describe('the send guard on recipients', () => {
  it('lets mail to an allowed address through: it arrives', async () => {
    await allowOnlyBob();
    const subject = 'Guard: allowed';
    const result = await world.run(world.alice, {
      ops_file: 'send_mail',
      vars: { TO: world.address.bob, SUBJECT: subject, BODY: 'hi' },
    });
    expect(result.ok, result.summary).toBe(true);
    const traces = await world.traces(subject);
    expect(traces.bob).toHaveLength(1);
    expect(traces.outside).toEqual([]);
  });

  it('refuses mail to an address outside the allow-list, names the rule, says to ask the operator, and leaves nothing anywhere', async () => {
    await allowOnlyBob();
    const subject = 'Guard: outside the list';
    const error = await refusal(
      world.run(world.alice, { ops_file: 'send_mail', vars: { TO: eve, SUBJECT: subject, BODY: 'hi' } }),
    );
    expect(error.code).toBe('policy_refused');
    expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.mode=allowlist' }, recipient: eve });
    expect(error.message).toContain('your operator set');
    expect(error.hint).toBe(
      'Ask your operator (the person you work for) whether this should go out; only they can change their rules.',
    );
    expect(`${error.message} ${error.hint}`).not.toMatch(/allow-send|policy set|agent-mailbox/);
    await expectNoTrace(subject);
  });

  it('refuses a Bcc the model hides among allowed recipients', async () => {
    await allowOnlyBob();
    const subject = 'Guard: hidden bcc';
    await refusal(
      world.ops(world.alice, sendOps(subject, { to: [{ email: world.address.bob }], bcc: [{ email: eve }] })),
    );
    await expectNoTrace(subject);
  });

  it('judges the envelope when one is given: an allowed To with a forbidden rcptTo is refused', async () => {
    await allowOnlyBob();
    const subject = 'Guard: envelope';
    const envelope = { mailFrom: { email: world.address.alice }, rcptTo: [{ email: eve }] };
    await refusal(world.ops(world.alice, sendOps(subject, { to: [{ email: world.address.bob }] }, { envelope })));
    await expectNoTrace(subject);
  });

  it('sends to exactly the envelope: a forbidden To with an allowed rcptTo reaches only the allowed recipient', async () => {
    await allowOnlyBob();
    const subject = 'Guard: envelope narrows';
    const envelope = { mailFrom: { email: world.address.alice }, rcptTo: [{ email: world.address.bob }] };
    const result = await world.ops(world.alice, sendOps(subject, { to: [{ email: eve }] }, { envelope }));
    expect(result.ok, result.summary).toBe(true);
    const traces = await world.traces(subject);
    expect(traces.bob).toHaveLength(1);
    expect(traces.outside).toEqual([]);
  });

  for (const [form, value] of [
    ['header:Bcc', ` ${eve}`],
    ['header:bcc:asRaw', ` Friend <${eve}>`],
    ['header:Cc:asText', eve],
    ['header:To:asAddresses', [{ email: eve }]],
    ['header:BCC:asAddresses:all', [[{ email: eve }]]],
    ['header:To:asGroupedAddresses', [{ name: 'team', addresses: [{ email: eve }] }]],
    ['header:Resent-To', ` ${eve}`],
  ] as const) {
    it(`refuses a recipient written as ${form}`, async () => {
      await allowOnlyBob();
      const subject = `Guard: ${form}`;
      await refusal(world.ops(world.alice, sendOps(subject, { to: [{ email: world.address.bob }], [form]: value })));
      await expectNoTrace(subject);
    });
  }

  it('refuses a recipient in the raw headers list, whatever the case of the field name', async () => {
    await allowOnlyBob();
    const subject = 'Guard: headers list';
    await refusal(
      world.ops(
        world.alice,
        sendOps(subject, { to: [{ email: world.address.bob }], headers: [{ name: 'bCc', value: ` ${eve}` }] }),
      ),
    );
    await expectNoTrace(subject);
  });

  it('refuses a recipient form it cannot read rather than guessing (header:To:asDate)', async () => {
    const subject = 'Guard: unreadable form';
    const error = await refusal(
      world.ops(
        world.alice,
        sendOps(subject, { to: [{ email: world.address.bob }], 'header:To:asDate': '2024-01-01T00:00:00Z' }),
      ),
    );
    expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'unjudgeable' } });
    await expectNoTrace(subject);
  });

  it('reads the address, not the display name: an allowed address in the name does not carry a forbidden one', async () => {
    await allowOnlyBob();
    const subject = 'Guard: display name';
    await refusal(world.ops(world.alice, sendOps(subject, { 'header:To': ` "${world.address.bob}" <${eve}>` })));
    await expectNoTrace(subject);
    const fine = 'Guard: display name fine';
    const result = await world.ops(world.alice, sendOps(fine, { to: [{ name: eve, email: world.address.bob }] }));
    expect(result.ok, result.summary).toBe(true);
  });

  it('matches domains exactly: example.org covers its subdomains in any case, never example.org.evil.test', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: ['example.org', world.address.bob] } });
    const lookAlike = 'Guard: look-alike';
    const error = await refusal(
      world.run(world.alice, {
        ops_file: 'send_mail',
        vars: { TO: 'ceo@example.org.evil.test', SUBJECT: lookAlike, BODY: 'x' },
      }),
    );
    expect(error.details).toMatchObject({ recipient: 'ceo@example.org.evil.test' });
    await expectNoTrace(lookAlike);
    const sub = 'Guard: subdomain in capitals';
    const result = await world.run(world.alice, {
      ops_file: 'send_mail',
      vars: { TO: 'Ana@Mail.EXAMPLE.org.', SUBJECT: sub, BODY: 'x' },
    });
    expect(result.ok, result.summary).toBe(true);
    expect((await world.traces(sub)).outside).toHaveLength(1);
  });

  it('applies the block-list in open mode, to subdomains and any case', async () => {
    await world.writeInboxPolicy(world.alice.dir, { send: { block: ['evil.test'] } });
    const subject = 'Guard: blocked';
    const error = await refusal(
      world.run(world.alice, {
        ops_file: 'send_mail',
        vars: { TO: 'Boss@Mail.EVIL.Test', SUBJECT: subject, BODY: 'x' },
      }),
    );
    expect(error.details).toMatchObject({ rule: { layer: 'inbox', rule: 'send.block', entry: 'evil.test' } });
    await expectNoTrace(subject);
  });

  it('judges a draft saved earlier when a later request submits it', async () => {
    await allowOnlyBob();
    const subject = 'Guard: earlier draft';
    const saved = await world.ops(world.alice, [sendOps(subject, { to: [{ email: eve }] })[0]]);
    expect(saved.ok, saved.summary).toBe(true);
    const draftId = saved.created?.[0]?.id;
    expect(draftId).toBeDefined();
    await refusal(
      world.ops(world.alice, [
        [
          'EmailSubmission/set',
          { accountId: '$ACCOUNT_ID', create: { s: { emailId: draftId, identityId: '$IDENTITY_ID' } } },
          's',
        ],
      ]),
    );
    const traces = await world.traces(subject);
    expect(traces.outside).toEqual([]);
    expect(traces.alice).toHaveLength(1);
    expect(traces.alice[0]?.keywords).toMatchObject({ $draft: true });
  });

  it('refuses a whole batch when one of several submissions is refused: nothing of it runs', async () => {
    await allowOnlyBob();
    const [okSubject, badSubject] = ['Guard: batch ok part', 'Guard: batch bad part'];
    const ops = [
      [
        'Email/set',
        {
          accountId: '$ACCOUNT_ID',
          create: {
            a: {
              mailboxIds: { $DRAFTS_MAILBOX_ID: true },
              from: [{ email: '$INBOX' }],
              to: [{ email: world.address.bob }],
              subject: okSubject,
              bodyValues: { b: { value: 'x' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
            b: {
              mailboxIds: { $DRAFTS_MAILBOX_ID: true },
              from: [{ email: '$INBOX' }],
              to: [{ email: eve }],
              subject: badSubject,
              bodyValues: { b: { value: 'x' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
          },
        },
        'e',
      ],
      [
        'EmailSubmission/set',
        {
          accountId: '$ACCOUNT_ID',
          create: {
            s1: { emailId: '#a', identityId: '$IDENTITY_ID' },
            s2: { emailId: '#b', identityId: '$IDENTITY_ID' },
          },
        },
        's',
      ],
    ];
    await refusal(world.ops(world.alice, ops));
    await expectNoTrace(okSubject);
    await expectNoTrace(badSubject);
  });

  it('refuses a submission whose create comes from a result reference, even in open mode', async () => {
    const subject = 'Guard: result reference';
    const ops = [
      sendOps(subject, { to: [{ email: eve }] })[0],
      [
        'EmailSubmission/set',
        { accountId: '$ACCOUNT_ID', '#create': { resultOf: 'e', name: 'Email/set', path: '/created' } },
        's',
      ],
    ];
    const error = await refusal(world.ops(world.alice, ops));
    expect(error.details).toMatchObject({ rule: { rule: 'unjudgeable' } });
    await expectNoTrace(subject);
  });

  it('refuses a submission whose emailId is a creation nobody made in the batch', async () => {
    await allowOnlyBob();
    const error = await refusal(
      world.ops(world.alice, [
        [
          'EmailSubmission/set',
          { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#nowhere', identityId: '$IDENTITY_ID' } } },
          's',
        ],
      ]),
    );
    expect(error.message).toContain('#nowhere');
  });
});
