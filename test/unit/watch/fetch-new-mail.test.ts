import { describe, expect, it } from 'vitest';
import { fetchNewMail, type JmapCall, type JmapCaller } from '../../../src/watch/fetch-new-mail.js';

// A scripted JMAP peer: answers each method by name from a table, and records what was asked.
function scriptedJmap(
  answers: Record<
    string,
    (args: Record<string, unknown>) => Record<string, unknown> | ['error', Record<string, unknown>]
  >,
): JmapCaller & { asked: JmapCall[] } {
  const asked: JmapCall[] = [];
  return {
    asked,
    async request(calls) {
      asked.push(...calls);
      return calls.map(([name, args, id]) => {
        const answer = answers[name]?.(args);
        if (!answer) throw new Error(`unexpected ${name}`);
        return Array.isArray(answer) ? ['error', answer[1], id] : [name, answer, id];
      });
    },
  };
}

const mailboxes = () => ({
  list: [
    { id: 'inbox1', role: 'inbox' },
    { id: 'sent1', role: 'sent' },
  ],
});
const emails = (args: Record<string, unknown>) => ({
  state: '9',
  list: ((args.ids as string[] | undefined) ?? ['A', 'B']).map((id) => ({
    id,
    from: [{ name: `Sender ${id}`, email: `${id.toLowerCase()}@example.com` }],
    subject: `Subject ${id}`,
    receivedAt: id === 'S' ? '2026-11-22T08:00:00Z' : `2026-11-22T0${id === 'A' ? 1 : 2}:00:00Z`,
    mailboxIds: id === 'S' ? { sent1: true } : { inbox1: true },
  })),
});

describe('fetchNewMail', () => {
  it('on a first run, reads the state first and then queries the inbox for the last 24 hours', async () => {
    const jmap = scriptedJmap({
      'Email/get': emails,
      'Mailbox/get': mailboxes,
      'Email/query': () => ({ ids: ['A', 'B'], total: 2 }),
    });
    const mail = await fetchNewMail({ jmap, accountId: 'acc', now: new Date('2026-11-22T09:00:00Z') });
    expect(mail).toMatchObject({ mode: 'first-run', state: '9', total: 2 });
    expect(mail.items.map((i) => i.subject)).toEqual(['Subject B', 'Subject A']);
    const query = jmap.asked.find((c) => c[0] === 'Email/query');
    expect(query?.[1].filter).toEqual({ inMailbox: 'inbox1', after: '2026-11-21T09:00:00Z' });
  });

  it('with a stored state, reports only inbox mail created since then, following hasMoreChanges', async () => {
    let round = 0;
    const jmap = scriptedJmap({
      'Email/changes': () =>
        round++ === 0
          ? { newState: '5', hasMoreChanges: true, created: ['A'] }
          : { newState: '6', hasMoreChanges: false, created: ['S'] },
      'Email/get': emails,
      'Mailbox/get': mailboxes,
    });
    const mail = await fetchNewMail({ jmap, accountId: 'acc', sinceState: '4', now: new Date() });
    expect(mail).toMatchObject({ mode: 'changes', state: '6', total: 1 });
    expect(mail.items[0]?.from).toBe('Sender A <a@example.com>');
  });

  it('with no changes, makes one call and returns the new state', async () => {
    const jmap = scriptedJmap({ 'Email/changes': () => ({ newState: '4', hasMoreChanges: false, created: [] }) });
    expect(await fetchNewMail({ jmap, accountId: 'acc', sinceState: '4', now: new Date() })).toEqual({
      state: '4',
      items: [],
      total: 0,
      mode: 'changes',
    });
    expect(jmap.asked).toHaveLength(1);
  });

  it('falls back to the 24-hour window when the server cannot calculate changes (RFC 8620 §5.2)', async () => {
    const jmap = scriptedJmap({
      'Email/changes': () => ['error', { type: 'cannotCalculateChanges' }],
      'Email/get': emails,
      'Mailbox/get': mailboxes,
      'Email/query': () => ({ ids: ['A'], total: 1 }),
    });
    expect((await fetchNewMail({ jmap, accountId: 'acc', sinceState: 'old', now: new Date() })).mode).toBe('resync');
  });

  it('turns any other method error into jmap_method_error', async () => {
    const jmap = scriptedJmap({ 'Email/changes': () => ['error', { type: 'serverFail' }] });
    await expect(fetchNewMail({ jmap, accountId: 'acc', sinceState: '1', now: new Date() })).rejects.toMatchObject({
      code: 'jmap_method_error',
    });
  });

  it("names every author, bounded as listings bound them, and keeps the sender facts for the digest's verdict", async () => {
    const ar = 'header:Authentication-Results:asRaw:all';
    const authors = [
      { name: 'N'.repeat(5_000), email: 'ceo@bank.test' },
      ...Array.from({ length: 7 }, (_, i) => ({ name: null, email: `p${i}@evil.test` })),
    ];
    const jmap = scriptedJmap({
      'Email/changes': () => ({ newState: '6', hasMoreChanges: false, created: ['A'] }),
      'Email/get': () => ({
        state: '6',
        list: [
          {
            id: 'A',
            from: authors,
            sender: null,
            [ar]: [' agent-mailbox.test; dmarc=pass'],
            subject: 'S'.repeat(50_000),
            receivedAt: '',
            mailboxIds: { inbox1: true },
          },
        ],
      }),
      'Mailbox/get': mailboxes,
    });
    const [item] = (await fetchNewMail({ jmap, accountId: 'acc', sinceState: '5', now: new Date() })).items;
    expect(item?.from).toBe(
      `${'N'.repeat(200)}… <ceo@bank.test>, p0@evil.test, p1@evil.test, p2@evil.test, p3@evil.test, and 3 more`,
    );
    expect(item?.subject).toHaveLength(301);
    expect(item?.senderFacts).toEqual({ from: authors, sender: null, [ar]: [' agent-mailbox.test; dmarc=pass'] });
    expect(jmap.asked.find((call) => call[0] === 'Email/get')?.[1].properties).toEqual(
      expect.arrayContaining(['from', 'sender', ar]),
    );
  });
});
