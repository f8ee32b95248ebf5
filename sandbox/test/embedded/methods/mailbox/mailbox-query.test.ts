import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';
import { spliceQueryChanges } from '../../../helpers/splice-query-changes.js';

// Mailbox/query's tree options (RFC 8621 §2.3) and Mailbox/queryChanges (§2.4, RFC 8620 §5.6).
let host: JmapTestHost;
const alice = 'alice@agent-mailbox.test';

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
});
afterAll(() => host.close());

const call = async (name: string, args: Record<string, unknown>) =>
  resultOf(await host.call('alice', [[name, { accountId: alice, ...args }, 'c']]), 'c', name);
const names = async (ids: string[]): Promise<string[]> => {
  const list = (await call('Mailbox/get', { ids, properties: ['name'] }))['list'] as Array<{
    id: string;
    name: string;
  }>;
  return ids.map((id) => list.find((mailbox) => mailbox.id === id)?.name ?? '?');
};

describe('Mailbox/query', () => {
  let ids: Record<string, string>;
  beforeAll(async () => {
    const created = (
      await call('Mailbox/set', {
        create: {
          zoo: { name: 'Zoo', isSubscribed: true },
          ant: { name: 'Ant', parentId: '#zoo', isSubscribed: true },
          bee: { name: 'Bee', parentId: '#zoo' },
          cat: { name: 'Cat', parentId: '#bee', isSubscribed: true },
        },
      })
    )['created'] as Record<string, { id: string }>;
    ids = Object.fromEntries(Object.entries(created).map(([key, value]) => [key, value.id]));
  });

  it('sorts as a tree: every parent before its children, siblings by name', async () => {
    const result = await call('Mailbox/query', {
      filter: { hasAnyRole: false },
      sort: [{ property: 'name' }],
      sortAsTree: true,
    });
    expect(await names(result['ids'])).toEqual(['Zoo', 'Ant', 'Bee', 'Cat']);
    const flat = await call('Mailbox/query', { filter: { hasAnyRole: false }, sort: [{ property: 'name' }] });
    expect(await names(flat['ids'])).toEqual(['Ant', 'Bee', 'Cat', 'Zoo']);
  });

  it('filters as a tree: a match whose ancestor does not match is left out', async () => {
    const plain = await call('Mailbox/query', {
      filter: { isSubscribed: true, hasAnyRole: false },
      sort: [{ property: 'name' }],
    });
    expect(await names(plain['ids'])).toEqual(['Ant', 'Cat', 'Zoo']);
    const tree = await call('Mailbox/query', {
      filter: { isSubscribed: true, hasAnyRole: false },
      filterAsTree: true,
      sort: [{ property: 'name' }],
    });
    expect(await names(tree['ids'])).toEqual(['Ant', 'Zoo']);
  });

  it('filters by parentId (null for the top level), name, role and hasAnyRole, and pages with position, limit and anchor', async () => {
    expect(
      await names(
        (
          await call('Mailbox/query', {
            filter: { parentId: ids['zoo'] },
            sort: [{ property: 'name', isAscending: false }],
          })
        )['ids'],
      ),
    ).toEqual(['Bee', 'Ant']);
    expect((await call('Mailbox/query', { filter: { parentId: null, hasAnyRole: false } }))['ids']).toEqual([
      ids['zoo'],
    ]);
    expect(
      await names((await call('Mailbox/query', { filter: { name: 'a' }, sort: [{ property: 'name' }] }))['ids']),
    ).toEqual(expect.arrayContaining(['Ant', 'Cat']));
    expect((await call('Mailbox/query', { filter: { role: 'trash' } }))['ids']).toHaveLength(1);
    const page = await call('Mailbox/query', {
      filter: { hasAnyRole: false },
      sort: [{ property: 'name' }],
      anchor: ids['bee'],
      limit: 2,
      calculateTotal: true,
    });
    expect(page).toMatchObject({ position: 1, total: 4, canCalculateChanges: true });
    expect(await names(page['ids'])).toEqual(['Bee', 'Cat']);
    const unknown = await host.call('alice', [['Mailbox/query', { accountId: alice, filter: { colour: 'red' } }, 'q']]);
    expect(unknown[0]?.[1]).toMatchObject({ type: 'invalidArguments' });
  });
});

describe('Mailbox/queryChanges', () => {
  it('turns the old results into the new ones after creates, renames, moves and destroys, under sortAsTree', async () => {
    const query = { sort: [{ property: 'name' }], sortAsTree: true };
    const before = await call('Mailbox/query', query);
    const made = (
      await call('Mailbox/set', { create: { top: { name: 'Kiwi' }, leaf: { name: 'Leaf', parentId: '#top' } } })
    )['created'] as Record<string, { id: string }>;
    const trash = ((await call('Mailbox/query', { filter: { role: 'trash' } }))['ids'] as string[])[0] as string;
    await call('Mailbox/set', {
      update: { [made['top']!.id]: { name: 'Apple' }, [trash]: { name: 'Bin' } },
      destroy: [],
    });
    const after = await call('Mailbox/query', query);
    const changes = await call('Mailbox/queryChanges', {
      ...query,
      sinceQueryState: before['queryState'],
      calculateTotal: true,
    });
    expect(changes).toMatchObject({
      oldQueryState: before['queryState'],
      newQueryState: after['queryState'],
      total: after['ids'].length,
    });
    expect(spliceQueryChanges(before['ids'], changes['removed'], changes['added'])).toEqual(after['ids']);
    // The renamed parent took its child along: both are re-placed.
    expect((changes['added'] as Array<{ id: string }>).map((item) => item.id)).toEqual(
      expect.arrayContaining([made['top']!.id, made['leaf']!.id, trash]),
    );
    // Records created after the old state were never in the old results.
    expect(changes['removed']).not.toContain(made['leaf']!.id);
  });

  it('ignores count-only changes: a new message leaves the mailbox results as they were', async () => {
    const before = await call('Mailbox/query', {});
    const inbox = ((await call('Mailbox/query', { filter: { role: 'inbox' } }))['ids'] as string[])[0] as string;
    await call('Email/set', {
      create: {
        e: {
          mailboxIds: { [inbox]: true },
          subject: 'count me',
          bodyValues: { b: { value: 'x' } },
          textBody: [{ partId: 'b', type: 'text/plain' }],
        },
      },
    });
    const changes = await call('Mailbox/queryChanges', { sinceQueryState: before['queryState'] });
    expect(changes).toMatchObject({ removed: [], added: [] });
  });

  it('answers tooManyChanges beyond maxChanges and cannotCalculateChanges for a state it never gave', async () => {
    const before = await call('Mailbox/query', {});
    await call('Mailbox/set', { create: { a: { name: 'Mango' }, b: { name: 'Melon' } } });
    const tooMany = await host.call('alice', [
      ['Mailbox/queryChanges', { accountId: alice, sinceQueryState: before['queryState'], maxChanges: 1 }, 'q'],
    ]);
    expect(tooMany[0]?.[1]).toMatchObject({ type: 'tooManyChanges' });
    const unknown = await host.call('alice', [
      ['Mailbox/queryChanges', { accountId: alice, sinceQueryState: '99999' }, 'q'],
      ['Mailbox/queryChanges', { accountId: alice, sinceQueryState: 'abc' }, 'r'],
    ]);
    expect(unknown.map((response) => response[1]['type'])).toEqual([
      'cannotCalculateChanges',
      'cannotCalculateChanges',
    ]);
  });
});
