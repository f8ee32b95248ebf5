import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../helpers/jmap-test-host.js';

let host: JmapTestHost;
let aliceBoxes: Record<string, string>;
let bobBoxes: Record<string, string>;
const alice = 'alice@agent-mailbox.test';
const bob = 'bob@agent-mailbox.test';

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice', 'bob');
  aliceBoxes = await mailboxIds(host, 'alice');
  bobBoxes = await mailboxIds(host, 'bob');
});
afterAll(() => host.close());

/** The one-batch send recipe of shared/reference/jmap.md: draft in Drafts, submit, move to Sent. */
function sendBatch(draft: Record<string, unknown>, submission: Record<string, unknown> = {}): unknown[] {
  return [
    [
      'Email/set',
      {
        accountId: alice,
        create: {
          draft: {
            mailboxIds: { [aliceBoxes['drafts'] as string]: true },
            keywords: { $draft: true, $seen: true },
            from: [{ email: alice }],
            bodyValues: { body: { value: 'Hi there ✓' } },
            textBody: [{ partId: 'body', type: 'text/plain' }],
            ...draft,
          },
        },
      },
      '0',
    ],
    [
      'EmailSubmission/set',
      {
        accountId: alice,
        create: { send: { emailId: '#draft', identityId: alice, ...submission } },
        onSuccessUpdateEmail: {
          '#send': {
            [`mailboxIds/${aliceBoxes['drafts']}`]: null,
            [`mailboxIds/${aliceBoxes['sent']}`]: true,
            'keywords/$draft': null,
          },
        },
      },
      '1',
    ],
  ];
}

async function bobInbox(): Promise<Record<string, any>[]> {
  const responses = await host.call('bob', [
    [
      'Email/query',
      {
        accountId: bob,
        filter: { inMailbox: bobBoxes['inbox'] },
        sort: [{ property: 'receivedAt', isAscending: false }],
      },
      'q',
    ],
    [
      'Email/get',
      {
        accountId: bob,
        '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
        properties: ['subject', 'from', 'to', 'bcc', 'keywords', 'messageId', 'header:Received:asText', 'header:Bcc'],
        fetchTextBodyValues: true,
      },
      'g',
    ],
  ]);
  return resultOf(responses, 'g')['list'];
}

async function outbox(): Promise<Record<string, any>[]> {
  return (await (await fetch(`${host.baseUrl}/sandbox/outbox`)).json()) as Record<string, any>[];
}

describe('EmailSubmission/set sending (RFC 8621 §7, spec §1.3)', () => {
  it('delivers inbox to inbox, files the sent copy in Sent and hides Bcc from the recipient', async () => {
    const responses = await host.call(
      'alice',
      sendBatch({
        to: [{ name: 'Bob', email: bob }],
        bcc: [{ email: bob }],
        subject: 'Hello Bob 👋',
        messageId: ['hello-bob@agent-mailbox.test'],
      }),
    );
    const draftId = resultOf(responses, '0')['created']['draft']['id'];
    const submission = resultOf(responses, '1', 'EmailSubmission/set');
    expect(submission['notCreated']).toBeNull();
    expect(submission['created']['send']).toMatchObject({ id: expect.any(String), undoStatus: 'final' });
    expect(resultOf(responses, '1', 'Email/set')['updated']).toEqual({ [draftId]: null });

    const sent = resultOf(
      await host.call('alice', [
        ['Email/get', { accountId: alice, ids: [draftId], properties: ['mailboxIds', 'keywords'] }, 'g'],
      ]),
      'g',
    )['list'][0];
    expect(sent).toEqual({
      id: draftId,
      mailboxIds: { [aliceBoxes['sent'] as string]: true },
      keywords: { $seen: true },
    });

    const [received] = await bobInbox();
    expect(received).toMatchObject({
      subject: 'Hello Bob 👋',
      from: [{ name: null, email: alice }],
      to: [{ name: 'Bob', email: bob }],
      bcc: null,
      'header:Bcc': null,
      keywords: {},
      messageId: ['hello-bob@agent-mailbox.test'],
    });
    expect(received?.['id']).not.toBe(draftId);
    expect(received?.['header:Received:asText']).toContain(`for <${bob}>`);

    const submissions = resultOf(
      await host.call('alice', [
        ['EmailSubmission/get', { accountId: alice, ids: [submission['created']['send']['id']] }, 'g'],
      ]),
      'g',
    );
    expect(submissions['list'][0]).toMatchObject({
      emailId: draftId,
      identityId: alice,
      undoStatus: 'final',
      envelope: { mailFrom: { email: alice }, rcptTo: [{ email: bob }] },
      deliveryStatus: { [bob]: { delivered: 'yes' } },
    });
  });

  it('sends to another domain into the outbox log', async () => {
    const before = (await outbox()).length;
    const responses = await host.call(
      'alice',
      sendBatch({ to: [{ email: 'someone@example.org' }], cc: [{ email: bob }], subject: 'Out into the world' }),
    );
    expect(resultOf(responses, '1', 'EmailSubmission/set')['notCreated']).toBeNull();
    const entries = await outbox();
    expect(entries).toHaveLength(before + 1);
    const entry = entries.at(-1) as Record<string, any>;
    expect(entry).toMatchObject({
      from: alice,
      to: ['someone@example.org'],
      subject: 'Out into the world',
      size: expect.any(Number),
    });
    const raw = Buffer.from(entry['rawBase64'], 'base64').toString('utf8');
    expect(raw).toMatch(/^Subject: Out into the world\r?$/m);
    expect(entry['size']).toBe(Buffer.from(entry['rawBase64'], 'base64').length);
    expect((await bobInbox()).map((email) => email['subject'])).toContain('Out into the world');
  });

  it('uses the envelope when one is given, not the headers', async () => {
    const responses = await host.call(
      'alice',
      sendBatch(
        { to: [{ email: 'header-only@example.org' }], subject: 'Envelope wins' },
        { envelope: { mailFrom: { email: alice }, rcptTo: [{ email: bob }] } },
      ),
    );
    expect(resultOf(responses, '1', 'EmailSubmission/set')['notCreated']).toBeNull();
    expect((await outbox()).some((entry) => entry['subject'] === 'Envelope wins')).toBe(false);
    expect((await bobInbox()).map((email) => email['subject'])).toContain('Envelope wins');
  });

  it('refuses a From that is not the inbox own address with forbiddenFrom', async () => {
    const responses = await host.call(
      'alice',
      sendBatch({ from: [{ email: 'ceo@agent-mailbox.test' }], to: [{ email: bob }], subject: 'Spoof' }),
    );
    expect(resultOf(responses, '1', 'EmailSubmission/set')['notCreated']['send']).toMatchObject({
      type: 'forbiddenFrom',
    });
    // onSuccessUpdateEmail does not run for a failed submission.
    expect(responses.filter((response) => response[0] === 'Email/set')).toHaveLength(1);
  });

  it('refuses an envelope mailFrom that is not the inbox with forbiddenMailFrom', async () => {
    const responses = await host.call(
      'alice',
      sendBatch(
        { to: [{ email: bob }] },
        { envelope: { mailFrom: { email: 'x@example.org' }, rcptTo: [{ email: bob }] } },
      ),
    );
    expect(resultOf(responses, '1', 'EmailSubmission/set')['notCreated']['send']).toMatchObject({
      type: 'forbiddenMailFrom',
    });
  });

  it('refuses unknown addresses of the sandbox domain with invalidRecipients and delivers nothing', async () => {
    const before = (await bobInbox()).length;
    const responses = await host.call(
      'alice',
      sendBatch({ to: [{ email: bob }, { email: 'ghost@agent-mailbox.test' }], subject: 'Partly wrong' }),
    );
    expect(resultOf(responses, '1', 'EmailSubmission/set')['notCreated']['send']).toMatchObject({
      type: 'invalidRecipients',
      invalidRecipients: ['ghost@agent-mailbox.test'],
    });
    expect(await bobInbox()).toHaveLength(before);
  });

  it('refuses an unknown identityId, a missing email and a message without recipients', async () => {
    const responses = await host.call('alice', [
      ...sendBatch({ to: [{ email: bob }] }, { identityId: 'someone-else' }),
      ['EmailSubmission/set', { accountId: alice, create: { x: { emailId: 'Mnothere' } } }, '2'],
      [
        'Email/set',
        {
          accountId: alice,
          create: {
            lonely: {
              mailboxIds: { [aliceBoxes['drafts'] as string]: true },
              from: [{ email: alice }],
              subject: 'nobody',
            },
          },
        },
        '3',
      ],
      ['EmailSubmission/set', { accountId: alice, create: { y: { emailId: '#lonely' } } }, '4'],
    ]);
    expect(resultOf(responses, '1', 'EmailSubmission/set')['notCreated']['send']).toMatchObject({
      type: 'invalidProperties',
      properties: ['identityId'],
    });
    expect(resultOf(responses, '2')['notCreated']['x']).toMatchObject({
      type: 'invalidProperties',
      properties: ['emailId'],
    });
    expect(resultOf(responses, '4')['notCreated']['y']).toMatchObject({ type: 'noRecipients' });
  });

  it('sends without identityId and destroys the draft with onSuccessDestroyEmail', async () => {
    const responses = await host.call('alice', [
      [
        'Email/set',
        {
          accountId: alice,
          create: {
            d: {
              mailboxIds: { [aliceBoxes['drafts'] as string]: true },
              from: [{ email: alice }],
              to: [{ email: bob }],
              subject: 'Fire and forget',
            },
          },
        },
        '0',
      ],
      [
        'EmailSubmission/set',
        { accountId: alice, create: { s: { emailId: '#d' } }, onSuccessDestroyEmail: ['#s'] },
        '1',
      ],
    ]);
    const draftId = resultOf(responses, '0')['created']['d']['id'];
    expect(resultOf(responses, '1', 'Email/set')['destroyed']).toEqual([draftId]);
    expect((await bobInbox()).map((email) => email['subject'])).toContain('Fire and forget');
  });

  it('answers Identity/get with the one identity whose id is the address', async () => {
    const responses = await host.call('alice', [['Identity/get', { accountId: alice }, 'i']]);
    expect(resultOf(responses, 'i')['list']).toEqual([
      expect.objectContaining({ id: alice, email: alice, mayDelete: false }),
    ]);
  });

  it('cannot unsend a final submission and reports EmailSubmission/changes', async () => {
    const state = resultOf(
      await host.call('alice', [['EmailSubmission/get', { accountId: alice, ids: [] }, 'g']]),
      'g',
    )['state'];
    const responses = await host.call('alice', sendBatch({ to: [{ email: bob }], subject: 'No take-backs' }));
    const id = resultOf(responses, '1', 'EmailSubmission/set')['created']['send']['id'];
    const after = await host.call('alice', [
      ['EmailSubmission/set', { accountId: alice, update: { [id]: { undoStatus: 'canceled' } } }, 'u'],
      ['EmailSubmission/changes', { accountId: alice, sinceState: state }, 'c'],
    ]);
    expect(resultOf(after, 'u')['notUpdated'][id]).toMatchObject({ type: 'cannotUnsend' });
    expect(resultOf(after, 'c')['created']).toEqual([id]);
  });
});
