import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../helpers/jmap-test-host.js';

// Identity/set and Identity/changes (RFC 8621 §6.3, §6.2) on the embedded store.
let host: JmapTestHost;
const alice = 'alice@agent-mailbox.test';

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice', 'bob');
});
afterAll(() => host.close());

const identities = async () => resultOf(await host.call('alice', [['Identity/get', { accountId: alice }, 'g']]), 'g');
const setIdentities = async (args: Record<string, unknown>) =>
  resultOf(await host.call('alice', [['Identity/set', { accountId: alice, ...args }, 's']]), 's', 'Identity/set');

describe('Identity/set', () => {
  it("starts with the inbox's own identity, whose id is the address and which may not be deleted", async () => {
    expect((await identities())['list']).toEqual([
      {
        id: alice,
        name: '',
        email: alice,
        replyTo: null,
        bcc: null,
        textSignature: '',
        htmlSignature: '',
        mayDelete: false,
      },
    ]);
  });

  it("creates an identity for the inbox's own address (any case) with a name and signature, returning the defaults it set", async () => {
    const before = (await identities())['state'];
    const result = await setIdentities({
      create: { bot: { name: 'Alice Bot', email: alice.toUpperCase(), textSignature: '-- the bot' } },
    });
    expect(result['created']['bot']).toEqual({
      id: expect.any(String),
      replyTo: null,
      bcc: null,
      htmlSignature: '',
      mayDelete: true,
    });
    const changes = resultOf(
      await host.call('alice', [['Identity/changes', { accountId: alice, sinceState: before }, 'c']]),
      'c',
    );
    expect(changes).toMatchObject({ created: [result['created']['bot']['id']], updated: [], destroyed: [] });
    expect((await identities())['list']).toContainEqual(
      expect.objectContaining({ name: 'Alice Bot', email: alice, textSignature: '-- the bot' }),
    );
  });

  it('refuses an address the inbox may not send as with forbiddenFrom, and bad or server-set properties with invalidProperties', async () => {
    const result = await setIdentities({
      create: {
        other: { email: 'bob@agent-mailbox.test' },
        outside: { name: 'CEO', email: 'ceo@example.org' },
        noEmail: { name: 'Nameless' },
        serverSet: { email: alice, mayDelete: false },
        badReplyTo: { email: alice, replyTo: [{ name: 'x' }] },
      },
    });
    expect(result['created']).toBeNull();
    expect(result['notCreated']).toMatchObject({
      other: { type: 'forbiddenFrom' },
      outside: { type: 'forbiddenFrom' },
      noEmail: { type: 'invalidProperties', properties: ['email'] },
      serverSet: { type: 'invalidProperties', properties: ['mayDelete'] },
      badReplyTo: { type: 'invalidProperties', properties: ['replyTo'] },
    });
  });

  it('updates name, replyTo and signatures; email stays as it was created', async () => {
    const id = (await setIdentities({ create: { x: { email: alice, name: 'Before' } } }))['created']['x']['id'];
    const result = await setIdentities({
      update: {
        [id]: {
          name: 'After',
          replyTo: [{ email: 'replies@agent-mailbox.test' }],
          htmlSignature: '<i>bot</i>',
          email: alice,
        },
      },
    });
    expect(result['updated']).toEqual({ [id]: null });
    expect((await identities())['list']).toContainEqual(
      expect.objectContaining({
        id,
        name: 'After',
        replyTo: [{ name: null, email: 'replies@agent-mailbox.test' }],
        htmlSignature: '<i>bot</i>',
      }),
    );
    const changedEmail = await setIdentities({ update: { [id]: { email: 'bob@agent-mailbox.test' } } });
    expect(changedEmail['notUpdated'][id]).toMatchObject({ type: 'invalidProperties', properties: ['email'] });
    const missing = await setIdentities({ update: { 'I-none': { name: 'x' } } });
    expect(missing['notUpdated']['I-none']).toMatchObject({ type: 'notFound' });
  });

  it("destroys an added identity but refuses the inbox's own (mayDelete false)", async () => {
    const id = (await setIdentities({ create: { x: { email: alice, name: 'Temporary' } } }))['created']['x']['id'];
    const result = await setIdentities({ destroy: [id, alice, 'I-none'] });
    expect(result['destroyed']).toEqual([id]);
    expect(result['notDestroyed']).toMatchObject({ [alice]: { type: 'forbidden' }, 'I-none': { type: 'notFound' } });
  });

  it("sends with an added identity, From still the inbox's own address", async () => {
    const boxes = await mailboxIds(host, 'alice');
    const id = (await setIdentities({ create: { x: { email: alice, name: 'Sender' } } }))['created']['x']['id'];
    const responses = await host.call('alice', [
      [
        'Email/set',
        {
          accountId: alice,
          create: {
            d: {
              mailboxIds: { [boxes['drafts'] as string]: true },
              from: [{ name: 'Sender', email: alice }],
              to: [{ email: 'bob@agent-mailbox.test' }],
              subject: 'via identity',
              bodyValues: { b: { value: 'x' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
          },
        },
        'e',
      ],
      ['EmailSubmission/set', { accountId: alice, create: { s: { emailId: '#d', identityId: id } } }, 's'],
      ['EmailSubmission/get', { accountId: alice, ids: ['#s'], properties: ['identityId'] }, 'g'],
    ]);
    expect(resultOf(responses, 'g')['list'][0]).toMatchObject({ identityId: id });
    const unknown = await host.call('alice', [
      [
        'EmailSubmission/set',
        {
          accountId: alice,
          create: { s: { emailId: resultOf(responses, 'e')['created']['d']['id'], identityId: 'I-none' } },
        },
        's',
      ],
    ]);
    expect(resultOf(unknown, 's')['notCreated']['s']).toMatchObject({
      type: 'invalidProperties',
      properties: ['identityId'],
    });
  });
});
