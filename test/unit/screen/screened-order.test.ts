import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import { countsPastPage, screenQueryOrder } from '../../../src/screen/screened-order.js';
import { failure, fakeMailHost, mailbox, screenOf, type FakeMessage } from './fake-mail-host.js';

/**
 * Totals, positions, anchors and queryChanges indexes under receive rules: counted over the mail the
 * screen shows, so a held message is as if it did not exist, whatever a filter on its words asks.
 */

const core = 'urn:ietf:params:jmap:core';
const mail = 'urn:ietf:params:jmap:mail';

type Args = Record<string, unknown>;
const query = (args: Args, reader = true): JmapRequest => ({
  using: [core, mail],
  methodCalls: [
    ['Email/query', { accountId: 'acc-1', ...args }, 'q'],
    ...(reader
      ? [
          [
            'Email/get',
            {
              accountId: 'acc-1',
              '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
              properties: ['subject'],
            },
            'g',
          ] as [string, Args, string],
        ]
      : []),
  ],
});
const listed = (answer: JmapResponse, at = 1): string[] =>
  (answer.methodResponses[at]?.[1].list as { id: string }[]).map((e) => e.id);

/** Answers `request` from `messages` and screens the answer; the screened answer and the report. */
async function screened(messages: FakeMessage[], request: JmapRequest, extra: Parameters<typeof screenOf>[1] = {}) {
  const host = fakeMailHost(messages);
  const screen = screenOf(host, extra);
  const answer = await host.lookup(request);
  await screen.screen(request, answer);
  return { answer, report: screen.report(), host };
}

// The mailbox's 30 messages, newest first (every third from spam.test, held); some say secret words.
const said = (words: Record<number, string>): FakeMessage[] =>
  mailbox.map((m, i) => ({ ...m, text: words[i] ?? 'hello' }));

describe('countsPastPage', () => {
  it("counts over the shown mail whenever an answer's numbers reach past its first page", () => {
    // A total asked for, or one the server gave unasked, counts every match, held mail too.
    expect(countsPastPage({ calculateTotal: true }, {})).toBe(true);
    expect(countsPastPage({}, { total: 30 })).toBe(true);
    expect(countsPastPage({ calculateTotal: false }, { total: 0 })).toBe(true);
    // A position past the start or from the end, and an anchor, are placed among held mail too.
    expect(countsPastPage({ position: 3 }, {})).toBe(true);
    expect(countsPastPage({ position: -1 }, {})).toBe(true);
    expect(countsPastPage({ anchor: 'M7' }, {})).toBe(true);
    expect(countsPastPage({ anchor: 'M7', position: 0 }, {})).toBe(true);
    // A first page without numbers is left to the refill.
    expect(countsPastPage({}, {})).toBe(false);
    expect(countsPastPage({ position: 0, calculateTotal: false, anchor: null }, { total: '30' })).toBe(false);
    expect(countsPastPage({ position: '3' }, {})).toBe(false);
  });
});

describe("a filter on a held message's words", () => {
  const withHeld = said({ 0: 'wire the funds to account 4471', 1: 'funds arrived', 2: 'funds report' });
  const without = withHeld.filter((m) => m.id !== 'M0');

  it.each([
    ['a total', { filter: { text: 'funds' }, calculateTotal: true, limit: 1 }],
    ['a total of an empty page', { filter: { text: '4471' }, calculateTotal: true, limit: 0 }],
    ['a position past 0', { filter: { text: 'funds' }, position: 1, limit: 5 }],
    ['a position from the end', { filter: { text: 'funds' }, position: -1 }],
    ['an anchor', { filter: { text: 'funds' }, anchor: 'M2', anchorOffset: -1 }],
  ])(
    'gets through %s the answer it would get if the message did not exist, and no count of held mail',
    async (_what, args) => {
      const probed = await screened(withHeld, query(args));
      const clean = await screened(without, query(args));
      expect(probed.answer).toEqual(clean.answer);
      expect(probed.report).toBeUndefined();
      expect(JSON.stringify(probed.answer)).not.toContain('M0');
    },
  );

  it('gets the same answer for a word the held message has and one nobody wrote', async () => {
    const hit = await screened(withHeld, query({ filter: { text: '4471' }, calculateTotal: true }));
    const miss = await screened(withHeld, query({ filter: { text: 'zebra' }, calculateTotal: true }));
    expect(hit.answer).toEqual(miss.answer);
    expect(hit.answer.methodResponses[0]?.[1]).toEqual({ ids: [], position: 0, total: 0 });
    expect(hit.report).toBeUndefined();
  });
});

describe("a listing's total and page under receive rules", () => {
  it('counts the shown matches of the whole mailbox, and still reports held mail a mailbox listing met', async () => {
    const { answer, report } = await screened(
      mailbox,
      query({ filter: { inMailbox: 'inbox' }, calculateTotal: true, limit: 4 }),
    );
    expect(answer.methodResponses[0]?.[1]).toEqual({ ids: ['M1', 'M2', 'M4', 'M5'], position: 0, total: 20 });
    expect(listed(answer)).toEqual(['M1', 'M2', 'M4', 'M5']);
    expect(report?.count).toBe(10);
  });

  it("pages by positions over the shown mail, from the start and from the end, the reader in the page's order", async () => {
    const page = await screened(mailbox, query({ position: 5, limit: 3, calculateTotal: true }));
    expect(page.answer.methodResponses[0]?.[1]).toEqual({ ids: ['M8', 'M10', 'M11'], position: 5, total: 20 });
    expect(listed(page.answer)).toEqual(['M8', 'M10', 'M11']);
    const tail = await screened(mailbox, query({ position: -2, limit: 10 }));
    expect(tail.answer.methodResponses[0]?.[1]).toMatchObject({ ids: ['M28', 'M29'], position: 18 });
    expect(listed(tail.answer)).toEqual(['M28', 'M29']);
    const past = await screened(mailbox, query({ position: 25, limit: 3 }));
    expect(past.answer.methodResponses[0]?.[1]).toMatchObject({ ids: [], position: 25 });
    expect(listed(past.answer)).toEqual([]);
  });

  it('places an anchor among the shown mail, and answers a held anchor as one the server does not have', async () => {
    const anchored = await screened(mailbox, query({ anchor: 'M7', anchorOffset: -2, limit: 3 }));
    expect(anchored.answer.methodResponses[0]?.[1]).toMatchObject({ ids: ['M4', 'M5', 'M7'], position: 2 });
    expect(listed(anchored.answer)).toEqual(['M4', 'M5', 'M7']);
    const held = await screened(mailbox, query({ anchor: 'M6', limit: 3 }));
    expect(held.answer.methodResponses[0]).toEqual([
      'error',
      { type: 'anchorNotFound', description: 'The anchor is not in the results; query again without it.' },
      'q',
    ]);
    expect(held.answer.methodResponses[1]).toEqual([
      'error',
      { type: 'invalidResultReference', description: 'The query it refers to failed.' },
      'g',
    ]);
  });

  it("keeps the server's cut of a limit it would not serve", async () => {
    const host = fakeMailHost(mailbox, { maxLimit: 4 });
    const request = query({ limit: 10, calculateTotal: true });
    const answer = await host.lookup(request);
    await screenOf(host).screen(request, answer);
    expect(answer.methodResponses[0]?.[1]).toEqual({ ids: ['M1', 'M2', 'M4', 'M5'], position: 0, total: 20, limit: 4 });
  });

  it('reads the matches from the start in pages of the lookup size, one past the read cap', async () => {
    const { host } = await screened(mailbox, query({ calculateTotal: true, limit: 2 }, false), {
      caps: { shown: 100, scanned: 100 },
    });
    const scans = host
      .calls()
      .filter(
        ([name, args]) =>
          name === 'Email/query' &&
          args.calculateTotal === true &&
          args.position !== undefined &&
          'limit' in args &&
          args.limit !== 2,
      );
    expect(scans.map(([, args]) => [args.position, args.limit])).toEqual([[0, 101]]);
  });

  it('scans from the start with the filter and sort only: no anchor, position, or change arguments of the call', async () => {
    const anchored = await screened(mailbox, query({ anchor: 'M7', anchorOffset: -2, limit: 3, sort: [] }, false));
    const since: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        [
          'Email/queryChanges',
          { accountId: 'acc-1', sinceQueryState: '1', maxChanges: 50, upToId: 'M9', calculateTotal: true },
          'qc',
        ],
      ],
    };
    const host = fakeMailHost(mailbox);
    await screenOf(host).screen(since, {
      methodResponses: [
        ['Email/queryChanges', { oldQueryState: '1', newQueryState: '2', removed: [], added: [] }, 'qc'],
      ],
    });
    for (const calls of [anchored.host.calls(), host.calls()]) {
      const scans = calls.filter(([name, args]) => name === 'Email/query' && args.calculateTotal === true);
      expect(scans.length).toBeGreaterThan(0);
      for (const [, args] of scans)
        for (const key of ['anchor', 'anchorOffset', 'sinceQueryState', 'maxChanges', 'upToId'])
          expect(args, key).not.toHaveProperty(key);
      expect(scans[0]?.[1].position).toBe(0);
    }
  });

  it('fails with a clear error past the shown cap, and past the read cap when held mail floods the matches', async () => {
    const many = await failure(
      screened(mailbox, query({ calculateTotal: true, limit: 10 }), { caps: { shown: 19, scanned: 100 } }),
    );
    expect(many.code).toBe('jmap_request_error');
    expect(many.message).toBe(
      "This Email/query asks for a total, a position or indexes, which under the operator's receive rules are counted over the mail they show, and it matches more than 19 messages the operator's receive rules show.",
    );
    expect(many.hint).toBe(
      'Narrow the filter (a mailbox, `after`, `before`), or ask without calculateTotal and from position 0 (the screen then fills each page without counting).',
    );
    expect(
      (await screened(mailbox, query({ calculateTotal: true, limit: 10 }), { caps: { shown: 20, scanned: 100 } }))
        .answer.methodResponses[0]?.[1].total,
    ).toBe(20);
    const flood = mailbox.map((m) => ({ ...m, from: 'x@spam.test' }));
    const read = await failure(
      screened(flood, query({ calculateTotal: true, limit: 10 }), { caps: { shown: 100, scanned: 29 } }),
    );
    expect(read.message).toContain('it matches more than 29 messages.');
    expect(
      (await screened(flood, query({ calculateTotal: true, limit: 10 }), { caps: { shown: 100, scanned: 30 } })).answer
        .methodResponses[0]?.[1].total,
    ).toBe(0);
  });

  it('refuses to count a query whose arguments refer to another call, and fails when its own reading fails', async () => {
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        [
          'Email/query',
          { accountId: 'acc-1', '#filter': { resultOf: 'x', name: 'Foo/get', path: '/f' }, calculateTotal: true },
          'q',
        ],
      ],
    };
    const error = await failure(screened(mailbox, request).then(() => undefined));
    expect(error.message).toContain("and its arguments refer to another call's results.");
    const host = fakeMailHost(mailbox);
    const answer = await host.lookup(query({ calculateTotal: true, limit: 10 }));
    const broken = await failure(
      screenOf(host, {
        lookup: async (r) =>
          r.methodCalls[0]?.[1].calculateTotal
            ? { methodResponses: [['error', { type: 'serverFail' }, 'q']] }
            : host.lookup(r),
      }).screen(query({ calculateTotal: true, limit: 10 }), answer),
    );
    expect(broken.message).toBe(
      "Counting the mail the operator's receive rules show failed: Email/query answered serverFail.",
    );
  });

  it('judges a first page that holds every match from the page itself, with no second query, held mail still out', async () => {
    const { answer, host, report } = await screened(mailbox.slice(0, 9), query({ calculateTotal: true, limit: 20 }));
    expect(answer.methodResponses[0]?.[1]).toEqual({
      ids: ['M1', 'M2', 'M4', 'M5', 'M7', 'M8'],
      position: 0,
      total: 6,
    });
    expect(listed(answer)).toEqual(['M1', 'M2', 'M4', 'M5', 'M7', 'M8']);
    expect(report?.count).toBe(3);
    expect(host.calls().filter(([name]) => name === 'Email/query')).toHaveLength(1);
    // One more match than the page holds: the matches are counted by a query of their own.
    const cut = await screened(mailbox.slice(0, 9), query({ calculateTotal: true, limit: 8 }));
    expect(cut.answer.methodResponses[0]?.[1]).toEqual({
      ids: ['M1', 'M2', 'M4', 'M5', 'M7', 'M8'],
      position: 0,
      total: 6,
    });
    expect(cut.host.calls().filter(([name]) => name === 'Email/query')).toHaveLength(2);
    // A later page or an anchor is never taken for the whole.
    const later = await screened(mailbox.slice(0, 9), query({ calculateTotal: true, position: 1, limit: 20 }));
    expect(later.answer.methodResponses[0]?.[1]).toMatchObject({ position: 1, total: 6 });
    expect(later.host.calls().filter(([name]) => name === 'Email/query')).toHaveLength(2);
  });

  it('leaves a first page without a total to the refill, reading no further than it needs', async () => {
    const { answer, host } = await screened(mailbox.slice(0, 6), query({ limit: 3 }));
    expect(answer.methodResponses[0]?.[1].ids).toEqual(['M1', 'M2', 'M4']);
    expect(host.calls().some(([name, args]) => name === 'Email/query' && args.calculateTotal === true)).toBe(false);
  });
});

describe('Email/queryChanges under receive rules', () => {
  const changes = (answer: Args, args: Args = {}): [JmapRequest, JmapResponse] => [
    {
      using: [core, mail],
      methodCalls: [['Email/queryChanges', { accountId: 'acc-1', sinceQueryState: '1', ...args }, 'qc']],
    },
    { methodResponses: [['Email/queryChanges', { oldQueryState: '1', newQueryState: '2', ...answer }, 'qc']] },
  ];

  it('takes held and vanished ids out of removed and added, counts indexes and the total over the shown mail', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const [request, answer] = changes(
      {
        removed: ['M3', 'M4', 'gone'],
        added: [
          { id: 'M6', index: 6 },
          { id: 'M7', index: 7 },
        ],
        total: 30,
      },
      { calculateTotal: true },
    );
    await screen.screen(request, answer);
    expect(answer.methodResponses[0]?.[1]).toEqual({
      oldQueryState: '1',
      newQueryState: '2',
      removed: ['M4'],
      added: [{ id: 'M7', index: 4 }],
      total: 20,
    });
    expect(screen.report()).toMatchObject({ count: 10 });
  });

  it('reads nothing more for changes that add nothing and ask no total', async () => {
    const host = fakeMailHost(mailbox);
    const [request, answer] = changes({ removed: ['M1'], added: [] });
    await screenOf(host).screen(request, answer);
    expect(answer.methodResponses[0]?.[1]).toEqual({
      oldQueryState: '1',
      newQueryState: '2',
      removed: ['M1'],
      added: [],
    });
    expect(host.calls().some(([name]) => name === 'Email/query')).toBe(false);
  });

  it("gives a content filter's changes the same answer with and without a held match, and no count", async () => {
    const words = said({ 0: 'secret plan', 1: 'secret' });
    const [request, answer] = changes(
      {
        removed: [],
        added: [
          { id: 'M0', index: 0 },
          { id: 'M1', index: 1 },
        ],
        total: 2,
      },
      { filter: { text: 'secret' }, calculateTotal: true },
    );
    const screen = screenOf(fakeMailHost(words));
    await screen.screen(request, answer);
    const [, clean] = changes(
      { removed: [], added: [{ id: 'M1', index: 0 }], total: 1 },
      { filter: { text: 'secret' }, calculateTotal: true },
    );
    const cleanScreen = screenOf(fakeMailHost(words.slice(1)));
    await cleanScreen.screen(request, clean);
    expect(answer).toEqual(clean);
    expect(answer.methodResponses[0]?.[1]).toMatchObject({ added: [{ id: 'M1', index: 0 }], total: 1 });
    expect(screen.report()).toBeUndefined();
  });
});

describe("Email/queryChanges' maxChanges under receive rules", () => {
  /** A host that answers Email/queryChanges with `changes` (and counts how often it was asked), everything else from the mailbox. */
  function changesHost(changes: Args) {
    const host = fakeMailHost(mailbox);
    let asked = 0;
    const lookup = async (request: JmapRequest): Promise<JmapResponse> => {
      const [name, args, callId] = request.methodCalls[0] ?? [];
      if (name !== 'Email/queryChanges') return host.lookup(request);
      asked += 1;
      return {
        methodResponses: [
          typeof args?.maxChanges === 'number'
            ? ['error', { type: 'tooManyChanges' }, callId as string]
            : ['Email/queryChanges', structuredClone(changes), callId as string],
        ],
      };
    };
    return { lookup, asked: () => asked };
  }
  const request = (maxChanges: number): JmapRequest => ({
    using: [core, mail],
    methodCalls: [['Email/queryChanges', { accountId: 'acc-1', sinceQueryState: '1', maxChanges }, 'qc']],
  });
  const tooMany = (): JmapResponse => ({ methodResponses: [['error', { type: 'tooManyChanges' }, 'qc']] });
  const changes = {
    oldQueryState: '1',
    newQueryState: '2',
    removed: ['M6'],
    added: [
      { id: 'M0', index: 0 },
      { id: 'M1', index: 1 },
      { id: 'M3', index: 3 },
    ],
  };

  it('answers the changes when the shown ones are within maxChanges, though the held ones made the server refuse', async () => {
    const host = changesHost(changes);
    const answer = tooMany();
    await screenOf(fakeMailHost(mailbox), { lookup: host.lookup }).screen(request(1), answer);
    expect(answer.methodResponses[0]).toEqual([
      'Email/queryChanges',
      { oldQueryState: '1', newQueryState: '2', removed: [], added: [{ id: 'M1', index: 0 }] },
      'qc',
    ]);
    expect(host.asked()).toBe(1);
  });

  it('keeps the error when the shown changes alone are too many, and any other error as it came', async () => {
    const answer = tooMany();
    await screenOf(fakeMailHost(mailbox), { lookup: changesHost(changes).lookup }).screen(request(0), answer);
    expect(answer).toEqual(tooMany());
    const other: JmapResponse = { methodResponses: [['error', { type: 'cannotCalculateChanges' }, 'qc']] };
    const host = changesHost(changes);
    await screenOf(fakeMailHost(mailbox), { lookup: host.lookup }).screen(request(0), other);
    expect(other.methodResponses[0]).toEqual(['error', { type: 'cannotCalculateChanges' }, 'qc']);
    expect(host.asked()).toBe(0);
  });
});

describe('SearchSnippet/get under receive rules', () => {
  it('answers a held id as not found whether or not it matches, and a back-referenced page only for shown ids', async () => {
    const words = said({ 0: 'secret', 1: 'secret' });
    const snippets = (filter: Args): JmapRequest => ({
      using: [core, mail],
      methodCalls: [['SearchSnippet/get', { accountId: 'acc-1', filter, emailIds: ['M0', 'M1'] }, 's']],
    });
    const hit = await screened(words, snippets({ text: 'secret' }));
    const miss = await screened(words, snippets({ text: 'zebra' }));
    expect(hit.answer.methodResponses[0]?.[1]).toEqual({
      list: [{ emailId: 'M1', subject: 'subject M1' }],
      notFound: ['M0'],
    });
    expect(hit.answer).toEqual(miss.answer);
    const paged: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'acc-1', filter: { text: 'secret' }, calculateTotal: true }, 'q'],
        [
          'SearchSnippet/get',
          {
            accountId: 'acc-1',
            filter: { text: 'secret' },
            '#emailIds': { resultOf: 'q', name: 'Email/query', path: '/ids' },
          },
          's',
        ],
      ],
    };
    const { answer, report } = await screened(words, paged);
    expect(answer.methodResponses[1]?.[1]).toEqual({ list: [{ emailId: 'M1', subject: 'subject M1' }], notFound: [] });
    expect(report).toBeUndefined();
  });
});

describe('totals, positions and anchors in the edge cases a reader meets', () => {
  const first = (answer: JmapResponse) => answer.methodResponses[0]?.[1];

  /** Answers `request` from the mailbox, lets `change` alter the server's query answer, and screens it. */
  async function screenedAltered(request: JmapRequest, change: (answer: Args) => void) {
    const host = fakeMailHost(mailbox);
    const answer = await host.lookup(request);
    change(answer.methodResponses[0]![1]);
    await screenOf(host).screen(request, answer);
    return { answer, host };
  }

  it('places an anchor on the first shown message, and one without an offset on itself', async () => {
    const atStart = await screened(mailbox, query({ anchor: 'M1', limit: 2 }));
    expect(first(atStart.answer)).toEqual({ ids: ['M1', 'M2'], position: 0 });
    const plain = await screened(mailbox, query({ anchor: 'M7', limit: 2 }));
    expect(first(plain.answer)).toEqual({ ids: ['M7', 'M8'], position: 4 });
  });

  it('adds no total nobody asked for and the server did not give', async () => {
    const { answer } = await screened(mailbox, query({ position: 2, limit: 2 }));
    expect(first(answer)).toEqual({ ids: ['M4', 'M5'], position: 2 });
  });

  it('counts a total that was asked for though the server left it out, and one the server gave unasked', async () => {
    const left = await screenedAltered(query({ calculateTotal: true, limit: 4 }), (a) => delete a.total);
    expect(first(left.answer)).toEqual({ ids: ['M1', 'M2', 'M4', 'M5'], position: 0, total: 20 });
    const unasked = await screenedAltered(query({ limit: 4 }), (a) => (a.total = 30));
    expect(first(unasked.answer)).toEqual({ ids: ['M1', 'M2', 'M4', 'M5'], position: 0, total: 20 });
  });

  it('judges a whole page on its own too: held ids the call still lists are taken out of it and its total', async () => {
    const request = query({ calculateTotal: true }, false);
    const response: JmapResponse = {
      methodResponses: [['Email/query', { ids: ['A', 'B', 'C'], position: 0, total: 3 }, 'q']],
    };
    const lookups: JmapRequest[] = [];
    await screenQueryOrder(request, response, 0, {
      accountId: 'acc-1',
      lookup: async (r) => {
        lookups.push(r);
        return { methodResponses: [] };
      },
      judge: async () => new Set(['B']),
      shownOf: async () => new Set(),
      pageSize: 10,
      caps: { shown: 10, scanned: 10 },
    });
    expect(first(response)).toEqual({ ids: ['A', 'C'], position: 0, total: 2 });
    expect(lookups).toEqual([]);
  });

  it('takes a whole page up to the caps exactly, and counts by reading past either cap (then failing)', async () => {
    const nine = mailbox.slice(0, 9); // six shown: M1 M2 M4 M5 M7 M8
    const queries = (host: { calls(): unknown[][] }) => host.calls().filter(([name]) => name === 'Email/query');
    const exact = await screened(nine, query({ calculateTotal: true, limit: 20 }), {
      caps: { shown: 6, scanned: 6 },
    });
    expect(first(exact.answer)).toMatchObject({ total: 6 });
    expect(queries(exact.host)).toHaveLength(1);
    const overShown = await failure(
      screened(nine, query({ calculateTotal: true, limit: 20 }), { caps: { shown: 5, scanned: 100 } }),
    );
    expect(overShown.message).toContain('it matches more than 5 messages the operator');
    const overRead = await failure(
      screened(nine, query({ calculateTotal: true, limit: 20 }), { caps: { shown: 100, scanned: 5 } }),
    );
    expect(overRead.message).toContain('it matches more than 5 messages.');
  });

  it('reads a long match list in pages of 500, the last one reaching one past the read cap, under the mail capabilities', async () => {
    const many: FakeMessage[] = Array.from({ length: 700 }, (_, i) => ({ id: `L${i}`, from: `f${i}@fine.test` }));
    const host = fakeMailHost(many);
    const request = query({ calculateTotal: true, limit: 10 }, false);
    const answer = await host.lookup(request);
    const error = await failure(screenOf(host, { caps: { shown: 1000, scanned: 600 } }).screen(request, answer));
    expect(error.message).toContain('it matches more than 600 messages.');
    const scans = host.requests.filter(({ methodCalls: [call] }) => call?.[0] === 'Email/query' && call[2] === 'q');
    expect(scans.slice(1).map(({ methodCalls: [call] }) => [call?.[1].position, call?.[1].limit])).toEqual([
      [0, 500],
      [500, 101],
    ]);
    for (const scan of scans.slice(1)) expect(scan.using).toEqual([core, mail]);
  });

  it('ends a count on an empty page when the server gives no totals', async () => {
    const host = fakeMailHost(mailbox);
    const lookup = async (r: JmapRequest): Promise<JmapResponse> => {
      const answer = await host.lookup(r);
      for (const [name, args] of answer.methodResponses) if (name === 'Email/query') delete args.total;
      return answer;
    };
    const request = query({ calculateTotal: true, limit: 4 }, false);
    const answer = await host.lookup(request);
    await screenOf(host, { lookup }).screen(request, answer);
    expect(first(answer)).toEqual({ ids: ['M1', 'M2', 'M4', 'M5'], position: 0, total: 20 });
  });

  it('says what to do when a count cannot be made: a back-referenced filter, a failed or empty reading, a flood', async () => {
    const referenced: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        [
          'Email/query',
          { accountId: 'acc-1', '#filter': { resultOf: 'x', name: 'Foo/get', path: '/f' }, position: 2 },
          'q',
        ],
      ],
    };
    const error = await failure(screened(mailbox, referenced));
    expect(error.hint).toBe(
      'Pass the filter and sort literally, or ask without calculateTotal and from position 0 (the screen then fills each page without counting).',
    );
    const host = fakeMailHost(mailbox);
    const request = query({ calculateTotal: true, limit: 4 }, false);
    const answer = await host.lookup(request);
    const empty = await failure(
      screenOf(host, {
        lookup: async (r) => (r.methodCalls[0]?.[2] === 'q' ? { methodResponses: [] } : host.lookup(r)),
      }).screen(request, answer),
    );
    expect(empty.code).toBe('jmap_request_error');
    expect(empty.message).toBe(
      "Counting the mail the operator's receive rules show failed: Email/query answered nothing.",
    );
    expect(empty.hint).toBe('Nothing was shown. Run the request again; if it keeps failing, tell your operator.');
    const flood = mailbox.map((m) => ({ ...m, from: 'x@spam.test' }));
    const read = await failure(
      screened(flood, query({ calculateTotal: true, limit: 10 }), { caps: { shown: 100, scanned: 29 } }),
    );
    expect(read.hint).toBe(
      'Narrow the filter (a mailbox, `after`, `before`), or ask without calculateTotal and from position 0 (the screen then fills each page without counting).',
    );
  });
});

describe('the calls that read a counted page', () => {
  const get = (args: Args, callId: string): [string, Args, string] => [
    'Email/get',
    { accountId: 'acc-1', properties: ['subject'], ...args },
    callId,
  ];
  const byReference = { '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' } };
  const subjectReads = (host: { calls(): unknown[][] }) =>
    host
      .calls()
      .filter(
        ([name, args]) =>
          name === 'Email/get' &&
          (args as Args).properties !== undefined &&
          String((args as Args).properties) === 'subject',
      );

  it('gives every reader of the page the page, in order (Email/get and SearchSnippet/get), and leaves the other calls alone', async () => {
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        get({ ids: ['M1', 'M3'] }, 'g0'),
        ['Email/query', { accountId: 'acc-1', calculateTotal: true, position: 1, limit: 3 }, 'q'],
        get(byReference, 'g'),
        [
          'SearchSnippet/get',
          { accountId: 'acc-1', '#emailIds': { resultOf: 'q', name: 'Email/query', path: '/ids' } },
          's',
        ],
      ],
    };
    const { answer } = await screened(mailbox, request);
    expect(answer.methodResponses).toEqual([
      ['Email/get', { list: [{ id: 'M1', subject: 'subject M1' }], notFound: ['M3'] }, 'g0'],
      ['Email/query', { ids: ['M2', 'M4', 'M5'], position: 1, total: 20 }, 'q'],
      [
        'Email/get',
        {
          list: ['M2', 'M4', 'M5'].map((id) => ({ id, subject: `subject ${id}` })),
          notFound: [],
        },
        'g',
      ],
      [
        'SearchSnippet/get',
        { list: ['M2', 'M4', 'M5'].map((emailId) => ({ emailId, subject: `subject ${emailId}` })), notFound: [] },
        's',
      ],
    ]);
  });

  it('leaves a failed reader as it failed', async () => {
    const host = fakeMailHost(mailbox);
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'acc-1', calculateTotal: true, position: 1, limit: 3 }, 'q'],
        get(byReference, 'g'),
      ],
    };
    const answer = await host.lookup(request);
    answer.methodResponses[1] = ['error', { type: 'serverFail' }, 'g'];
    await screenOf(host).screen(request, answer);
    expect(answer.methodResponses[1]).toEqual(['error', { type: 'serverFail' }, 'g']);
  });

  it("asks nothing again for what the reader's answer already holds: its list and its notFound, nothing else kept", async () => {
    const host = fakeMailHost(mailbox);
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [['Email/query', { accountId: 'acc-1', calculateTotal: true }, 'q'], get(byReference, 'g')],
    };
    const answer: JmapResponse = {
      methodResponses: [
        ['Email/query', { ids: ['M1', 'ghost', 'M2'], position: 0, total: 3 }, 'q'],
        [
          'Email/get',
          {
            list: [null, { id: 'M2', subject: 'subject M2' }, { id: 'M1', subject: 'subject M1' }],
            notFound: ['ghost', 'elsewhere'],
          },
          'g',
        ],
      ],
    };
    await screenOf(host).screen(request, answer);
    expect(answer.methodResponses[1]?.[1]).toEqual({
      list: [
        { id: 'M1', subject: 'subject M1' },
        { id: 'M2', subject: 'subject M2' },
      ],
      notFound: ['ghost'],
    });
    expect(subjectReads(host)).toEqual([]);
  });
});

describe('Email/queryChanges and tooManyChanges in the edge cases', () => {
  const changesCall = (args: Args = {}): JmapRequest => ({
    using: [core, mail],
    methodCalls: [['Email/queryChanges', { accountId: 'acc-1', sinceQueryState: '1', ...args }, 'qc']],
  });
  const changesAnswer = (answer: Args): JmapResponse => ({
    methodResponses: [['Email/queryChanges', { oldQueryState: '1', newQueryState: '2', ...answer }, 'qc']],
  });

  it('gives an answer without removed no removed list, and reads nothing for it', async () => {
    const host = fakeMailHost(mailbox);
    const answer = changesAnswer({});
    await screenOf(host).screen(changesCall(), answer);
    expect(answer.methodResponses[0]?.[1]).not.toHaveProperty('removed');
    expect(host.requests).toEqual([]);
  });

  it('counts a total asked for though nothing was added, and one the server gave unasked', async () => {
    for (const [args, given] of [
      [{ calculateTotal: true }, {}],
      [{}, { total: 30 }],
    ] as const) {
      const answer = changesAnswer({ removed: [], added: [], ...given });
      await screenOf(fakeMailHost(mailbox)).screen(changesCall(args), answer);
      expect(answer.methodResponses[0]?.[1]).toEqual({
        oldQueryState: '1',
        newQueryState: '2',
        removed: [],
        added: [],
        total: 20,
      });
    }
  });

  it('drops an added entry the query no longer matches, and one that is not an entry', async () => {
    const answer = changesAnswer({ removed: [], added: [null, { id: 'gone', index: 0 }, { id: 'M2', index: 5 }] });
    await screenOf(fakeMailHost(mailbox)).screen(changesCall(), answer);
    expect(answer.methodResponses[0]?.[1]).toMatchObject({ added: [{ id: 'M2', index: 1 }] });
  });

  it('names Email/queryChanges in the error when its changes cannot be counted', async () => {
    const error = await failure(
      screenOf(fakeMailHost(mailbox), { caps: { shown: 5, scanned: 100 } }).screen(
        changesCall({ calculateTotal: true }),
        changesAnswer({ removed: [], added: [] }),
      ),
    );
    expect(error.message).toMatch(/^This Email\/queryChanges asks for a total/);
  });

  it('keeps a tooManyChanges that no maxChanges caused or that answers another call, and one asked again that comes back empty', async () => {
    const tooMany = (callId = 'qc'): JmapResponse => ({
      methodResponses: [['error', { type: 'tooManyChanges' }, callId]],
    });
    const asked: JmapRequest[] = [];
    const host = fakeMailHost(mailbox);
    const lookup = async (r: JmapRequest): Promise<JmapResponse> => {
      asked.push(r);
      return r.methodCalls[0]?.[0] === 'Email/queryChanges' ? { methodResponses: [] } : host.lookup(r);
    };
    const unlimited = tooMany();
    await screenOf(host, { lookup }).screen(changesCall(), unlimited);
    expect(unlimited).toEqual(tooMany());
    expect(asked).toEqual([]);
    const other = tooMany('x');
    await screenOf(host, { lookup }).screen(changesCall({ maxChanges: 1 }), other);
    expect(other).toEqual(tooMany('x'));
    const empty = tooMany();
    await screenOf(host, { lookup }).screen(changesCall({ maxChanges: 1 }), empty);
    expect(empty).toEqual(tooMany());
    expect(asked).toHaveLength(1);
  });
});
