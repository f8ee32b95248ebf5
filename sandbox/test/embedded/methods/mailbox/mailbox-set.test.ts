import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';

// Mailbox/set on the embedded store, RFC 8621 §2.5 and the rules of §2 on names, parents and roles.
let host: JmapTestHost;
let boxes: Record<string, string>;
let counter = 0;
const alice = 'alice@agent-mailbox.test';

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
  boxes = await mailboxIds(host, 'alice');
});
afterAll(() => host.close());

const setMailboxes = async (args: Record<string, unknown>) =>
  resultOf(await host.call('alice', [['Mailbox/set', { accountId: alice, ...args }, 's']]), 's', 'Mailbox/set');
const unique = (name: string): string => `${name} ${(counter += 1)}`;
const getMailbox = async (id: string): Promise<Record<string, any>> =>
  (
    resultOf(await host.call('alice', [['Mailbox/get', { accountId: alice, ids: [id] }, 'g']]), 'g')['list'] as Array<
      Record<string, any>
    >
  )[0] ?? {};
const state = async (type: 'Mailbox' | 'Email' | 'Thread'): Promise<string> =>
  resultOf(await host.call('alice', [[`${type}/get`, { accountId: alice, ids: [] }, 'g']]), 'g')['state'];
const addEmail = async (mailboxes: string[], subject: string): Promise<string> => {
  const set = await host.call('alice', [
    [
      'Email/set',
      {
        accountId: alice,
        create: {
          e: {
            mailboxIds: Object.fromEntries(mailboxes.map((id) => [id, true])),
            subject,
            from: [{ email: alice }],
            bodyValues: { b: { value: subject } },
            textBody: [{ partId: 'b', type: 'text/plain' }],
          },
        },
      },
      'e',
    ],
  ]);
  return resultOf(set, 'e')['created']['e']['id'];
};

describe('Mailbox/set create (RFC 8621 §2.5)', () => {
  it('creates a folder and a subfolder that names it by creation id, listed before it, and returns the defaults it chose', async () => {
    const name = unique('Projects');
    const result = await setMailboxes({ create: { child: { name: 'Sub', parentId: '#parent' }, parent: { name } } });
    const parent = result['created']['parent'];
    const child = result['created']['child'];
    // RFC 8620 §5.3: the created object carries the server-set properties and every default left out.
    expect(parent).toMatchObject({
      id: expect.any(String),
      parentId: null,
      role: null,
      sortOrder: 0,
      isSubscribed: false,
      totalEmails: 0,
      myRights: expect.objectContaining({ mayDelete: true }),
    });
    expect(parent).not.toHaveProperty('name');
    expect(child).not.toHaveProperty('parentId');
    expect(await getMailbox(child.id)).toMatchObject({ name: 'Sub', parentId: parent.id, role: null });
  });

  it('refuses a second mailbox of the same name under the same parent, but takes it under another parent or in other case', async () => {
    const name = unique('Twins');
    const first = await setMailboxes({ create: { a: { name } } });
    const again = await setMailboxes({
      create: {
        same: { name },
        otherCase: { name: name.toUpperCase() },
        nested: { name, parentId: first['created']['a']['id'] },
      },
    });
    expect(again['notCreated']['same']).toMatchObject({ type: 'invalidProperties', properties: ['name'] });
    expect(Object.keys(again['created']).sort()).toEqual(['nested', 'otherCase']);
  });

  it('refuses names that are empty, too long, hold control characters or "/", or are not NFC', async () => {
    const result = await setMailboxes({
      create: {
        empty: { name: '' },
        long: { name: 'x'.repeat(256) },
        control: { name: 'a\u0001b' },
        slash: { name: 'a/b' },
        nfd: { name: 'Cafe\u0301' },
        missing: {},
      },
    });
    for (const key of ['empty', 'long', 'control', 'slash', 'nfd', 'missing'])
      expect(result['notCreated'][key], key).toMatchObject({ type: 'invalidProperties', properties: ['name'] });
    expect(result['created']).toBeNull();
  });

  it('allows a name of 255 UTF-8 octets, the advertised maxSizeMailboxName', async () => {
    const result = await setMailboxes({ create: { edge: { name: 'é'.repeat(127) + 'x' } } });
    expect(result['created']).toHaveProperty('edge');
  });

  it('refuses a role another mailbox holds, an unregistered or upper-case role, and takes a free registered one', async () => {
    const result = await setMailboxes({
      create: {
        inbox: { name: unique('Second inbox'), role: 'inbox' },
        sent: { name: unique('Sent 2'), role: 'sent' },
        odd: { name: unique('Odd'), role: 'weird' },
        upper: { name: unique('Up'), role: 'Important' },
        important: { name: unique('Important'), role: 'important' },
      },
    });
    for (const key of ['inbox', 'sent', 'odd', 'upper'])
      expect(result['notCreated'][key], key).toMatchObject({ type: 'invalidProperties', properties: ['role'] });
    expect(await getMailbox(result['created']['important']['id'])).toMatchObject({ role: 'important' });
  });

  it('refuses server-set and unknown properties, and a parent that does not exist', async () => {
    const result = await setMailboxes({
      create: {
        counts: { name: unique('C'), totalEmails: 3 },
        unknown: { name: unique('U'), colour: 'red' },
        orphan: { name: unique('O'), parentId: 'm-none' },
        lost: { name: unique('L'), parentId: '#nowhere' },
      },
    });
    expect(result['notCreated']).toMatchObject({
      counts: { type: 'invalidProperties', properties: ['totalEmails'] },
      unknown: { type: 'invalidProperties', properties: ['colour'] },
      orphan: { type: 'invalidProperties', properties: ['parentId'] },
      lost: { type: 'invalidProperties', properties: ['parentId'] },
    });
  });

  it('refuses a mailbox deeper than maxMailboxDepth (10)', async () => {
    let parentId: string | null = null;
    for (let level = 1; level <= 10; level += 1) {
      const created: Record<string, any> = await setMailboxes({
        create: { m: { name: unique(`Level ${level}`), parentId } },
      });
      parentId = created['created']['m']['id'];
    }
    const tooDeep = await setMailboxes({ create: { m: { name: 'Level 11', parentId } } });
    expect(tooDeep['notCreated']['m']).toMatchObject({ type: 'invalidProperties', properties: ['parentId'] });
  });

  it('answers stateMismatch for a stale ifInState and changes nothing', async () => {
    const before = await state('Mailbox');
    const responses = await host.call('alice', [
      ['Mailbox/set', { accountId: alice, ifInState: 'stale', create: { m: { name: unique('Never') } } }, 's'],
    ]);
    expect(responses[0]).toEqual(['error', expect.objectContaining({ type: 'stateMismatch' }), 's']);
    expect(await state('Mailbox')).toBe(before);
  });
});

describe('Mailbox/set update', () => {
  it('renames, moves, re-sorts and subscribes a folder, and Mailbox/changes lists it with updatedProperties null', async () => {
    const made = await setMailboxes({ create: { a: { name: unique('Alpha') }, b: { name: unique('Beta') } } });
    const [a, b] = [made['created']['a']['id'], made['created']['b']['id']];
    const since = await state('Mailbox');
    const result = await setMailboxes({
      update: { [a]: { name: 'Alpha renamed', parentId: b, sortOrder: 5, isSubscribed: true } },
    });
    expect(result['updated']).toEqual({ [a]: null });
    expect(await getMailbox(a)).toMatchObject({ name: 'Alpha renamed', parentId: b, sortOrder: 5, isSubscribed: true });
    const changes = resultOf(
      await host.call('alice', [['Mailbox/changes', { accountId: alice, sinceState: since }, 'c']]),
      'c',
    );
    expect(changes).toMatchObject({ created: [], updated: [a], destroyed: [], updatedProperties: null });
  });

  it('refuses moving a mailbox into itself or below itself (no loops, RFC 8621 §2)', async () => {
    const made = await setMailboxes({
      create: {
        top: { name: unique('Top') },
        mid: { name: 'Mid', parentId: '#top' },
        low: { name: 'Low', parentId: '#mid' },
      },
    });
    const { top, low } = Object.fromEntries(
      Object.entries(made['created'] as Record<string, { id: string }>).map(([key, value]) => [key, value.id]),
    );
    const result = await setMailboxes({
      update: { [top as string]: { parentId: low }, [low as string]: { parentId: low } },
    });
    expect(result['notUpdated'][top as string]).toMatchObject({ type: 'invalidProperties', properties: ['parentId'] });
    expect(result['notUpdated'][low as string]).toMatchObject({ type: 'invalidProperties', properties: ['parentId'] });
  });

  it("refuses a rename onto a sibling's name and a role held elsewhere, and lets a role move once freed", async () => {
    const made = await setMailboxes({ create: { one: { name: unique('One') }, two: { name: unique('Two') } } });
    const [one, two] = [made['created']['one']['id'], made['created']['two']['id']];
    const clash = await setMailboxes({
      update: { [two]: { name: (await getMailbox(one))['name'] }, [one]: { role: 'drafts' } },
    });
    expect(clash['notUpdated'][two]).toMatchObject({ type: 'invalidProperties', properties: ['name'] });
    expect(clash['notUpdated'][one]).toMatchObject({ type: 'invalidProperties', properties: ['role'] });
    const moved = await setMailboxes({
      update: { [boxes['archive'] as string]: { role: null }, [one]: { role: 'archive' } },
    });
    expect(Object.keys(moved['updated']).sort()).toEqual([boxes['archive'], one].sort());
    expect(await getMailbox(one)).toMatchObject({ role: 'archive' });
  });

  it('keeps the Inbox where it is: no rename, no move, no other role (myRights.mayRename false)', async () => {
    const inbox = boxes['inbox'] as string;
    expect((await getMailbox(inbox))['myRights']).toMatchObject({ mayRename: false, mayDelete: false });
    const result = await setMailboxes({ update: { [inbox]: { name: 'Renamed inbox' } } });
    expect(result['notUpdated'][inbox]).toMatchObject({ type: 'forbidden' });
    const role = await setMailboxes({ update: { [inbox]: { role: null } } });
    expect(role['notUpdated'][inbox]).toMatchObject({ type: 'forbidden' });
    const sortOnly = await setMailboxes({ update: { [inbox]: { sortOrder: 0, isSubscribed: true } } });
    expect(sortOnly['updated']).toEqual({ [inbox]: null });
  });

  it('accepts a server-set property sent back unchanged and refuses a changed one', async () => {
    const made = await setMailboxes({ create: { m: { name: unique('Echo') } } });
    const id = made['created']['m']['id'];
    const same = await setMailboxes({ update: { [id]: { totalEmails: 0, name: unique('Echoed') } } });
    expect(same['updated']).toEqual({ [id]: null });
    const changed = await setMailboxes({ update: { [id]: { totalEmails: 9 } } });
    expect(changed['notUpdated'][id]).toMatchObject({ type: 'invalidProperties', properties: ['totalEmails'] });
    const missing = await setMailboxes({ update: { 'm-gone': { name: 'x' } } });
    expect(missing['notUpdated']['m-gone']).toMatchObject({ type: 'notFound' });
  });
});

describe('Mailbox/set destroy', () => {
  it('refuses a mailbox with a child (mailboxHasChild) but destroys parent and child named together', async () => {
    const made = await setMailboxes({
      create: { p: { name: unique('Parent') }, c: { name: 'Child', parentId: '#p' } },
    });
    const [p, c] = [made['created']['p']['id'], made['created']['c']['id']];
    const refused = await setMailboxes({ destroy: [p] });
    expect(refused['notDestroyed'][p]).toMatchObject({ type: 'mailboxHasChild' });
    const both = await setMailboxes({ destroy: [p, c] });
    expect((both['destroyed'] as string[]).sort()).toEqual([p, c].sort());
  });

  it('refuses a mailbox holding mail (mailboxHasEmail) unless onDestroyRemoveEmails, which destroys mail found only there', async () => {
    const made = await setMailboxes({ create: { m: { name: unique('Holder') } } });
    const id = made['created']['m']['id'];
    const only = await addEmail([id], 'only here');
    const shared = await addEmail([id, boxes['archive'] as string], 'also archived');
    const refused = await setMailboxes({ destroy: [id] });
    expect(refused['notDestroyed'][id]).toMatchObject({ type: 'mailboxHasEmail' });

    const [mailboxState, emailState, threadState] = [
      await state('Mailbox'),
      await state('Email'),
      await state('Thread'),
    ];
    const destroyed = await setMailboxes({ destroy: [id], onDestroyRemoveEmails: true });
    expect(destroyed['destroyed']).toEqual([id]);
    const after = await host.call('alice', [
      ['Email/get', { accountId: alice, ids: [only, shared], properties: ['mailboxIds'] }, 'g'],
      ['Email/changes', { accountId: alice, sinceState: emailState }, 'ec'],
      ['Mailbox/changes', { accountId: alice, sinceState: mailboxState }, 'mc'],
      ['Thread/changes', { accountId: alice, sinceState: threadState }, 'tc'],
    ]);
    expect(resultOf(after, 'g')).toMatchObject({
      list: [{ id: shared, mailboxIds: { [boxes['archive'] as string]: true } }],
      notFound: [only],
    });
    expect(resultOf(after, 'ec')).toMatchObject({ created: [], updated: [shared], destroyed: [only] });
    // The Archive's counts did not move: the shared message was there before and stays.
    expect(resultOf(after, 'mc')).toMatchObject({ created: [], updated: [], destroyed: [id] });
    expect(resultOf(after, 'tc')['destroyed']).toHaveLength(1);
  });

  it('never destroys the Inbox, and answers notFound for an unknown id', async () => {
    const result = await setMailboxes({ destroy: [boxes['inbox'], 'm-nothing'] });
    expect(result['notDestroyed']).toMatchObject({
      [boxes['inbox'] as string]: { type: 'forbidden' },
      'm-nothing': { type: 'notFound' },
    });
  });

  it('lets a role mailbox go and a new one take its role', async () => {
    const junk = boxes['junk'] as string;
    const gone = await setMailboxes({ destroy: [junk] });
    expect(gone['destroyed']).toEqual([junk]);
    const again = await setMailboxes({ create: { j: { name: 'Spam', role: 'junk' } } });
    expect(again['created']).toHaveProperty('j');
  });
});

describe('Mailbox counts in Mailbox/changes', () => {
  it('names only the count properties when mail arrival is all that changed (RFC 8621 §2.2)', async () => {
    const since = await state('Mailbox');
    await addEmail([boxes['inbox'] as string], 'counted');
    const changes = resultOf(
      await host.call('alice', [['Mailbox/changes', { accountId: alice, sinceState: since }, 'c']]),
      'c',
    );
    expect(changes).toMatchObject({
      updated: [boxes['inbox']],
      updatedProperties: ['totalEmails', 'unreadEmails', 'totalThreads', 'unreadThreads'],
    });
  });

  it('lets Email/set file mail into a mailbox created earlier in the same request', async () => {
    const responses = await host.call('alice', [
      ['Mailbox/set', { accountId: alice, create: { box: { name: unique('Fresh') } } }, 'm'],
      [
        'Email/set',
        {
          accountId: alice,
          create: {
            e: {
              mailboxIds: { '#box': true },
              subject: 'into the new box',
              bodyValues: { b: { value: 'x' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
          },
        },
        'e',
      ],
      ['Mailbox/get', { accountId: alice, ids: ['#box'], properties: ['totalEmails'] }, 'g'],
    ]);
    expect(resultOf(responses, 'e')['created']).toHaveProperty('e');
    expect(resultOf(responses, 'g')['list'][0]).toMatchObject({ totalEmails: 1 });
  });
});
