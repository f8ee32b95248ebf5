import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';
import { spliceQueryChanges } from '../../../helpers/splice-query-changes.js';

// Email/queryChanges (RFC 8621 §4.5 on RFC 8620 §5.6): every answer, spliced into the old
// results the way a client does, must give the new results exactly.
let host: JmapTestHost;
let boxes: Record<string, string>;
let minute = 0;
const alice = 'alice@agent-mailbox.test';

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
  boxes = await mailboxIds(host, 'alice');
});
afterAll(() => host.close());

const call = async (name: string, args: Record<string, unknown>) =>
  resultOf(await host.call('alice', [[name, { accountId: alice, ...args }, 'c']]), 'c', name);

/** Creates a message with its own receivedAt a minute after the last, so the order is known. */
const add = async (subject: string, extra: Record<string, unknown> = {}): Promise<string> => {
  minute += 1;
  const receivedAt = new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString().replace('.000Z', 'Z');
  const created = await call('Email/set', {
    create: {
      e: {
        mailboxIds: { [boxes['inbox'] as string]: true },
        receivedAt,
        subject,
        from: [{ email: 'someone@example.org' }],
        bodyValues: { b: { value: subject } },
        textBody: [{ partId: 'b', type: 'text/plain' }],
        ...extra,
      },
    },
  });
  return created['created']['e']['id'];
};

/** Runs the query, lets `change` act, and checks the queryChanges answer against the new results. */
async function expectSplice(
  query: Record<string, unknown>,
  change: () => Promise<void>,
  extra: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const before = await call('Email/query', query);
  expect(before['canCalculateChanges']).toBe(true);
  await change();
  const after = await call('Email/query', query);
  const changes = await call('Email/queryChanges', {
    ...query,
    sinceQueryState: before['queryState'],
    calculateTotal: true,
    ...extra,
  });
  expect(changes).toMatchObject({
    oldQueryState: before['queryState'],
    newQueryState: after['queryState'],
    total: after['ids'].length,
  });
  expect(spliceQueryChanges(before['ids'], changes['removed'], changes['added'])).toEqual(after['ids']);
  return changes;
}

const newestFirst = [{ property: 'receivedAt', isAscending: false }];

describe('Email/queryChanges', () => {
  it('adds new deliveries at their index and lists them in added only', async () => {
    await add('old one');
    const changes = await expectSplice({ filter: { inMailbox: boxes['inbox'] }, sort: newestFirst }, async () => {
      await add('new one');
      await add('new two');
    });
    expect(changes['removed']).toEqual([]);
    expect((changes['added'] as Array<{ index: number }>).map((item) => item.index)).toEqual([0, 1]);
  });

  it('follows keyword changes under a mutable filter (notKeyword $seen) and a destroy', async () => {
    const first = await add('unread a');
    const second = await add('unread b');
    const changes = await expectSplice({ filter: { notKeyword: '$seen' }, sort: newestFirst }, async () => {
      await call('Email/set', { update: { [first]: { 'keywords/$seen': true } }, destroy: [second] });
      await add('unread c');
    });
    expect(changes['removed']).toEqual(expect.arrayContaining([first, second]));
  });

  it('follows a move out of the mailbox it filters on', async () => {
    const moving = await add('to be archived');
    await expectSplice({ filter: { inMailbox: boxes['inbox'] }, sort: newestFirst }, async () => {
      await call('Email/set', {
        update: { [moving]: { [`mailboxIds/${boxes['inbox']}`]: null, [`mailboxIds/${boxes['archive']}`]: true } },
      });
    });
  });

  it('leaves out updates under an immutable filter and honours upToId there (RFC 8620 §5.6)', async () => {
    const query = { filter: { subject: 'stable' }, sort: newestFirst };
    const older = await add('stable older');
    const newer = await add('stable newer');
    const changes = await expectSplice(query, async () => {
      await call('Email/set', { update: { [older]: { 'keywords/$flagged': true } } });
    });
    expect(changes).toMatchObject({ removed: [], added: [] });
    const before = await call('Email/query', query);
    await add('stable newest');
    const upTo = await call('Email/queryChanges', { ...query, sinceQueryState: before['queryState'], upToId: newer });
    expect((upTo['added'] as Array<{ index: number }>).map((item) => item.index)).toEqual([0]);
    const beyond = await call('Email/queryChanges', {
      filter: { subject: 'stable' },
      sort: [{ property: 'receivedAt', isAscending: true }],
      sinceQueryState: before['queryState'],
      upToId: older,
    });
    // Sorted oldest first, the new message sits after upToId's index and is left out.
    expect(beyond['added']).toEqual([]);
  });

  it("re-places a thread's representative under collapseThreads when a reply arrives", async () => {
    const rootId = `root-${Date.now()}@example.org`;
    await add('thread root', { messageId: [rootId] });
    await add('unrelated');
    const changes = await expectSplice(
      { filter: { inMailbox: boxes['inbox'] }, sort: newestFirst, collapseThreads: true },
      async () => {
        await add('Re: thread root', { inReplyTo: [rootId], references: [rootId] });
      },
      { collapseThreads: true },
    );
    expect((changes['added'] as unknown[]).length).toBeGreaterThan(0);
  });

  it('follows thread-wide keywords (someInThreadHaveKeyword) when another message of the thread is flagged', async () => {
    const rootId = `flag-root-${Date.now()}@example.org`;
    const root = await add('flag root', { messageId: [rootId] });
    await add('Re: flag root', { inReplyTo: [rootId], references: [rootId] });
    await expectSplice({ filter: { someInThreadHaveKeyword: '$flagged' }, sort: newestFirst }, async () => {
      await call('Email/set', { update: { [root]: { 'keywords/$flagged': true } } });
    });
  });

  it('answers tooManyChanges beyond maxChanges and cannotCalculateChanges for an unknown or future state', async () => {
    const before = await call('Email/query', {});
    await add('x one');
    await add('x two');
    const responses = await host.call('alice', [
      ['Email/queryChanges', { accountId: alice, sinceQueryState: before['queryState'], maxChanges: 1 }, 'max'],
      ['Email/queryChanges', { accountId: alice, sinceQueryState: '1000000' }, 'future'],
      ['Email/queryChanges', { accountId: alice, sinceQueryState: 'x' }, 'bad'],
      [
        'Email/queryChanges',
        { accountId: alice, sinceQueryState: before['queryState'], filter: { nonsense: 1 } },
        'filter',
      ],
    ]);
    expect(responses.map((response) => response[1]['type'])).toEqual([
      'tooManyChanges',
      'cannotCalculateChanges',
      'cannotCalculateChanges',
      'unsupportedFilter',
    ]);
  });
});
