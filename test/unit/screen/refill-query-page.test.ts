import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import { refillQueryPage } from '../../../src/screen/refill-query-page.js';
import { fakeMailHost, type FakeMessage } from './fake-mail-host.js';

const core = 'urn:ietf:params:jmap:core';
const mail = 'urn:ietf:params:jmap:mail';

// A mailbox of 30 messages, newest first: every third one is held.
const mailbox = Array.from({ length: 30 }, (_, i) => `M${i}`);
const isHeld = (id: string): boolean => Number(id.slice(1)) % 3 === 0;

/** A fake JMAP host for the refill's lookups: Email/query pages and Email/get of any ids. */
function host(messages: readonly string[] = mailbox) {
  const requests: JmapRequest[] = [];
  const lookup = async (request: JmapRequest): Promise<JmapResponse> => {
    requests.push(request);
    const pages = new Map<string, string[]>();
    const methodResponses = request.methodCalls.map(
      ([name, args, callId]): [string, Record<string, unknown>, string] => {
        if (name === 'Email/query') {
          const position = Number(args.position ?? 0);
          const ids = messages.slice(position, position + Number(args.limit));
          pages.set(callId, ids);
          return [name, { ids, position }, callId];
        }
        const reference = args['#ids'] as { resultOf: string } | undefined;
        const ids = reference ? (pages.get(reference.resultOf) ?? []) : (args.ids as string[]);
        return [name, { list: ids.map((id) => ({ id, subject: `subject ${id}` })), notFound: [] }, callId];
      },
    );
    return { methodResponses };
  };
  return { requests, lookup };
}

const listing: JmapRequest = {
  using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
  methodCalls: [
    ['Email/query', { accountId: 'a', filter: { inMailbox: 'inbox' }, limit: 6, calculateTotal: true }, 'query'],
    [
      'Email/get',
      {
        accountId: 'a',
        '#ids': { resultOf: 'query', name: 'Email/query', path: '/ids' },
        properties: ['id', 'subject'],
      },
      'get',
    ],
  ],
};

/** The listing's first page after the screen took the held ids out (M0, M3 of M0–M5). */
function screenedPage(): JmapResponse {
  const shown = mailbox.slice(0, 6).filter((id) => !isHeld(id));
  return {
    methodResponses: [
      ['Email/query', { ids: shown, position: 0, total: 28 }, 'query'],
      ['Email/get', { list: shown.map((id) => ({ id, subject: `subject ${id}` })), notFound: [] }, 'get'],
    ],
  };
}

describe('refillQueryPage', () => {
  it("fills the page back to its limit from the mail after it, in order, and the listing's Email/get with it", async () => {
    const { requests, lookup } = host();
    const response = screenedPage();
    const judged: string[] = [];
    await refillQueryPage(
      listing,
      response,
      0,
      { removed: 2, served: 6 },
      {
        accountId: 'a',
        lookup,
        judge: async (ids) => {
          judged.push(...ids);
          return new Set(ids.filter(isHeld));
        },
      },
    );
    expect(response.methodResponses[0]?.[1]).toMatchObject({ ids: ['M1', 'M2', 'M4', 'M5', 'M7', 'M8'], position: 0 });
    expect((response.methodResponses[1]?.[1].list as { id: string }[]).map((e) => e.id)).toEqual([
      'M1',
      'M2',
      'M4',
      'M5',
      'M7',
      'M8',
    ]);
    // The next page starts after what the server served, without anchor or total; held ones it met come off the total.
    expect(requests[0]?.methodCalls[0]?.[1]).toEqual({
      accountId: 'a',
      filter: { inMailbox: 'inbox' },
      position: 6,
      limit: 20,
    });
    expect(judged[0]).toBe('M6');
    expect(response.methodResponses[0]?.[1].total).toBe(28 - judged.filter(isHeld).length);
    expect(requests[1]?.methodCalls).toEqual([
      ['Email/get', { accountId: 'a', properties: ['id', 'subject'], ids: ['M7', 'M8'] }, 'r0'],
    ]);
  });

  it('stops after a bounded number of pages when everything after is held, and leaves a short page short', async () => {
    const { requests, lookup } = host(Array.from({ length: 5000 }, (_, i) => `M${i}`));
    const response = screenedPage();
    await refillQueryPage(
      listing,
      response,
      0,
      { removed: 2, served: 6 },
      { accountId: 'a', lookup, judge: async (ids) => new Set(ids) },
    );
    expect(response.methodResponses[0]?.[1].ids).toEqual(['M1', 'M2', 'M4', 'M5']);
    expect(requests).toHaveLength(5);
  });

  it('does not look further when the server served less than a full page', async () => {
    const { requests, lookup } = host();
    await refillQueryPage(
      listing,
      screenedPage(),
      0,
      { removed: 2, served: 5 },
      { accountId: 'a', lookup, judge: async () => new Set() },
    );
    expect(requests).toEqual([]);
  });
});

describe('refillQueryPage, the follow-up it asks for', () => {
  const big: FakeMessage[] = Array.from({ length: 200 }, (_, i) => ({
    id: `M${i}`,
    from: i % 3 === 0 ? `x${i}@spam.test` : `y${i}@fine.test`,
  }));
  const query = (limit: number): JmapRequest => ({
    using: [core, mail],
    methodCalls: [
      [
        'Email/query',
        { accountId: 'a', filter: { inMailbox: 'inbox' }, limit, anchor: 'M0', anchorOffset: 0 },
        'query',
      ],
    ],
  });

  it('asks for the page after the one served, twice what is missing, with the sender facts the judge needs, and again for what is still missing', async () => {
    const host = fakeMailHost(big);
    const response: JmapResponse = {
      methodResponses: [['Email/query', { ids: [], position: 40, total: 200 }, 'query']],
    };
    const judged: { ids: readonly string[]; known: string[] }[] = [];
    let round = 0;
    const judge = async (ids: readonly string[], known: ReadonlyMap<string, unknown>): Promise<Set<string>> => {
      judged.push({ ids, known: [...known.keys()] });
      round += 1;
      // The first follow-up is all held but one.
      return new Set(round === 1 ? ids.slice(1) : ids.filter((id) => Number(id.slice(1)) % 3 === 0));
    };
    await refillQueryPage(
      query(45),
      response,
      0,
      { removed: 15, served: 45 },
      { accountId: 'acc-1', lookup: host.lookup, judge },
    );
    expect(host.requests[0]).toEqual({
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'a', filter: { inMailbox: 'inbox' }, limit: 30, position: 85 }, 'q'],
        [
          'Email/get',
          {
            accountId: 'acc-1',
            '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
            properties: ['id', 'from', 'sender', 'header:Authentication-Results:asRaw:all'],
          },
          'f',
        ],
      ],
    });
    expect(host.requests[1]?.methodCalls[0]?.[1]).toMatchObject({ position: 115, limit: 28 });
    expect(judged[0]).toEqual({ ids: big.slice(85, 115).map((m) => m.id), known: big.slice(85, 115).map((m) => m.id) });
    expect(response.methodResponses[0]?.[1].ids).toEqual([
      'M85',
      ...[
        'M115',
        'M116',
        'M118',
        'M119',
        'M121',
        'M122',
        'M124',
        'M125',
        'M127',
        'M128',
        'M130',
        'M131',
        'M133',
        'M134',
      ],
    ]);
    // Every held one the follow-ups met comes off the total: 29 of the first, 9 of the second (M117 … M141).
    expect(response.methodResponses[0]?.[1].total).toBe(200 - 29 - 9);
    expect(host.requests).toHaveLength(2);
  });

  it('asks at most for 256 at a time, from position 0 when the answer gave none, and not again once the mail runs out', async () => {
    const host = fakeMailHost(big);
    const response: JmapResponse = { methodResponses: [['Email/query', { ids: ['M1'] }, 'query']] };
    await refillQueryPage(
      query(150),
      response,
      0,
      { removed: 149, served: 150 },
      { accountId: 'acc-1', lookup: host.lookup, judge: async () => new Set() },
    );
    expect(host.requests[0]?.methodCalls[0]?.[1]).toMatchObject({ position: 150, limit: 256 });
    expect(host.requests).toHaveLength(1);
    expect(response.methodResponses[0]?.[1]).toEqual({ ids: ['M1', ...big.slice(150).map((m) => m.id)] });
  });

  it('leaves a page alone whose query it cannot repeat, or whose call or answer it cannot find', async () => {
    const host = fakeMailHost(big);
    const deps = { accountId: 'acc-1', lookup: host.lookup, judge: async () => new Set<string>() };
    const page = (): JmapResponse => ({ methodResponses: [['Email/query', { ids: ['M1'], position: 0 }, 'query']] });
    const referenced: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        [
          'Email/query',
          { accountId: 'a', '#filter': { resultOf: 'm', name: 'Mailbox/query', path: '/ids' }, limit: 6 },
          'query',
        ],
      ],
    };
    for (const [request, response, index] of [
      [referenced, page(), 0],
      [query(6), page(), 1],
      [{ using: [core, mail], methodCalls: [['Email/query', { accountId: 'a', limit: 6 }, 'other']] }, page(), 0],
    ] as [JmapRequest, JmapResponse, number][]) {
      const before = structuredClone(response);
      await refillQueryPage(request, response, index, { removed: 5, served: 6 }, deps);
      expect(response).toEqual(before);
    }
    expect(host.requests).toEqual([]);
  });

  it('stops when the follow-up fails, leaving the page short', async () => {
    const response: JmapResponse = {
      methodResponses: [['Email/query', { ids: ['M1'], position: 0, total: 9 }, 'query']],
    };
    const judged: (readonly string[])[] = [];
    const failing = async (): Promise<JmapResponse> => ({
      methodResponses: [
        ['error', { type: 'serverFail', ids: ['M7'], list: [{ id: 'M7' }] }, 'q'],
        ['error', { type: 'serverFail' }, 'f'],
      ],
    });
    const judge = async (ids: readonly string[]): Promise<Set<string>> => {
      judged.push(ids);
      return new Set();
    };
    await refillQueryPage(
      query(2),
      response,
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: failing, judge },
    );
    expect(response.methodResponses[0]?.[1]).toEqual({ ids: ['M1'], position: 0, total: 9 });
    expect(judged).toEqual([[]]);
  });
});

describe('refillQueryPage, the calls that read the page', () => {
  const messages: FakeMessage[] = Array.from({ length: 12 }, (_, i) => ({ id: `M${i}`, from: `y${i}@fine.test` }));
  const ref = (resultOf: string, path = '/ids') => ({ resultOf, name: 'Email/query', path });

  it("reads the added ids again for each Email/get and SearchSnippet/get of the query's ids, and for no other call", async () => {
    const host = fakeMailHost(messages);
    const request: JmapRequest = {
      using: [core, mail, 'urn:example:extra'],
      methodCalls: [
        ['Email/query', { accountId: 'a', limit: 3 }, 'query'],
        ['Email/query', { accountId: 'a', limit: 3, filter: { text: 'x' } }, 'other'],
        ['Email/get', { accountId: 'a', '#ids': ref('query', '/ids/*'), properties: ['subject'] }, 'get'],
        ['SearchSnippet/get', { accountId: 'a', '#emailIds': ref('query'), filter: { text: 'x' } }, 'snip'],
        ['Email/get', { accountId: 'a', ids: ['M9'] }, 'plain'],
        ['Email/get', { accountId: 'a', '#ids': ref('other') }, 'otherGet'],
        [
          'Email/get',
          { accountId: 'a', '#ids': { resultOf: 'query', name: 'Email/changes', path: '/ids' } },
          'wrongName',
        ],
        ['Email/get', { accountId: 'a', '#ids': ref('query', '/total') }, 'wrongPath'],
        [
          'Email/get',
          { accountId: 'a', '#ids': ref('query'), '#properties': { resultOf: 'p', name: 'X/get', path: '/list' } },
          'twoRefs',
        ],
        ['Thread/get', { accountId: 'a', '#ids': ref('query') }, 'threads'],
      ],
    };
    const response: JmapResponse = {
      methodResponses: [
        ['Email/query', { ids: ['M0'], position: 0 }, 'query'],
        ['Email/get', { list: [{ id: 'M0', subject: 'subject M0' }], notFound: null }, 'get'],
        ['SearchSnippet/get', { list: [{ emailId: 'M0', subject: 'subject M0' }] }, 'snip'],
      ],
    };
    await refillQueryPage(
      request,
      response,
      0,
      { removed: 2, served: 3 },
      { accountId: 'acc-1', lookup: host.lookup, judge: async () => new Set() },
    );
    expect(host.requests[1]).toEqual({
      using: [core, mail, 'urn:example:extra'],
      methodCalls: [
        ['Email/get', { accountId: 'a', properties: ['subject'], ids: ['M3', 'M4'] }, 'r0'],
        ['SearchSnippet/get', { accountId: 'a', filter: { text: 'x' }, emailIds: ['M3', 'M4'] }, 'r1'],
      ],
    });
    expect(response.methodResponses.map(([, args]) => args)).toEqual([
      { ids: ['M0', 'M3', 'M4'], position: 0 },
      {
        list: [
          { id: 'M0', subject: 'subject M0' },
          { id: 'M3', subject: 'subject M3' },
          { id: 'M4', subject: 'subject M4' },
        ],
        notFound: null,
      },
      {
        list: [
          { emailId: 'M0', subject: 'subject M0' },
          { emailId: 'M3', subject: 'subject M3' },
          { emailId: 'M4', subject: 'subject M4' },
        ],
      },
    ]);
  });

  it('gives each of two Email/get readers of the page its own answer', async () => {
    const host = fakeMailHost(messages);
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'a', limit: 2 }, 'query'],
        ['Email/get', { accountId: 'a', '#ids': ref('query'), properties: ['subject'] }, 'subjects'],
        ['Email/get', { accountId: 'a', '#ids': ref('query'), properties: ['blobId'] }, 'blobs'],
      ],
    };
    const response: JmapResponse = {
      methodResponses: [
        ['Email/query', { ids: ['M0'], position: 0 }, 'query'],
        ['Email/get', { list: [{ id: 'M0', subject: 'subject M0' }] }, 'subjects'],
        ['Email/get', { list: [{ id: 'M0', blobId: 'blob-M0' }] }, 'blobs'],
      ],
    };
    await refillQueryPage(
      request,
      response,
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: host.lookup, judge: async () => new Set() },
    );
    expect(response.methodResponses.map(([, args]) => args.list)).toEqual([
      undefined,
      [
        { id: 'M0', subject: 'subject M0' },
        { id: 'M2', subject: 'subject M2' },
      ],
      [
        { id: 'M0', blobId: 'blob-M0' },
        { id: 'M2', blobId: 'blob-M2' },
      ],
    ]);
  });

  it("leaves the readers' answers as they were when reading the added ids again fails, or when a reader had failed itself", async () => {
    const host = fakeMailHost(messages);
    const failingReads = async (request: JmapRequest): Promise<JmapResponse> =>
      request.methodCalls[0]?.[2] === 'r0'
        ? { methodResponses: [['error', { type: 'serverFail' }, 'r0']] }
        : host.lookup(request);
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'a', limit: 2 }, 'query'],
        ['Email/get', { accountId: 'a', '#ids': ref('query') }, 'get'],
      ],
    };
    const page = (): JmapResponse => ({
      methodResponses: [
        ['Email/query', { ids: ['M0'], position: 0 }, 'query'],
        ['Email/get', { list: [{ id: 'M0' }] }, 'get'],
      ],
    });
    const failed = page();
    await refillQueryPage(
      request,
      failed,
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: failingReads, judge: async () => new Set() },
    );
    expect(failed.methodResponses.map(([, args]) => args)).toEqual([
      { ids: ['M0', 'M2'], position: 0 },
      { list: [{ id: 'M0' }] },
    ]);
    const readerFailed: JmapResponse = {
      methodResponses: [
        ['Email/query', { ids: ['M0'], position: 0 }, 'query'],
        ['error', { type: 'invalidArguments' }, 'get'],
      ],
    };
    await refillQueryPage(
      request,
      readerFailed,
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: host.lookup, judge: async () => new Set() },
    );
    expect(readerFailed.methodResponses[1]).toEqual(['error', { type: 'invalidArguments' }, 'get']);
  });

  it("names an added message gone by the time it is read again in the reader's notFound, and sends nothing when nothing reads the page", async () => {
    const host = fakeMailHost(messages.slice(0, 4));
    const gone = async (request: JmapRequest): Promise<JmapResponse> => {
      const answer = await host.lookup(request);
      const [name, args, callId] = answer.methodResponses[0] ?? [];
      return callId === 'r0'
        ? {
            methodResponses: [
              [
                name as string,
                {
                  list: [],
                  notFound: args?.list === undefined ? [] : (args.list as { id: string }[]).map((e) => e.id),
                },
                'r0',
              ],
            ],
          }
        : answer;
    };
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'a', limit: 2 }, 'query'],
        ['Email/get', { accountId: 'a', '#ids': ref('query') }, 'get'],
      ],
    };
    const response: JmapResponse = {
      methodResponses: [
        ['Email/query', { ids: ['M0'], position: 0 }, 'query'],
        ['Email/get', { list: [{ id: 'M0' }] }, 'get'],
      ],
    };
    await refillQueryPage(
      request,
      response,
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: gone, judge: async () => new Set() },
    );
    expect(response.methodResponses[1]?.[1]).toEqual({ list: [{ id: 'M0' }], notFound: ['M2'] });

    const alone = fakeMailHost(messages);
    const onlyQuery: JmapRequest = {
      using: [core, mail],
      methodCalls: [['Email/query', { accountId: 'a', limit: 2 }, 'query']],
    };
    await refillQueryPage(
      onlyQuery,
      { methodResponses: [['Email/query', { ids: ['M0'], position: 0 }, 'query']] },
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: alone.lookup, judge: async () => new Set() },
    );
    expect(alone.requests).toHaveLength(1);
  });
});

describe('refillQueryPage, a follow-up answer it cannot fully read', () => {
  const request: JmapRequest = {
    using: [core, mail],
    methodCalls: [
      ['Email/query', { accountId: 'a', limit: 2 }, 'query'],
      ['Email/get', { accountId: 'a', '#ids': { resultOf: 'query', name: 'Email/query', path: '/ids' } }, 'get'],
    ],
  };
  const good = (id: string) => ({
    id,
    from: [{ email: `${id}@fine.test` }],
    sender: null,
    'header:Authentication-Results:asRaw:all': [],
  });

  it('passes the judge only the sender facts it could read, and adds only ids that are strings', async () => {
    const followUp = async (req: JmapRequest): Promise<JmapResponse> =>
      req.methodCalls[0]?.[0] === 'Email/query'
        ? {
            methodResponses: [
              // A stray answer under another call id is not the follow-up's.
              ['Email/query', { ids: ['X1', 'X2'] }, 'other'],
              ['Email/query', { ids: ['M2', 7, null, 'M3', 'M4', 'M5', 'M6'], position: 2 }, 'q'],
              ['Email/get', { list: [good('X1')] }, 'other'],
              ['SearchSnippet/get', { list: [good('X2')] }, 'f'],
              [
                'Email/get',
                {
                  list: [
                    good('M2'),
                    { ...good('M3'), from: 'M3@fine.test' },
                    { ...good('M4'), sender: 'boss@blocked.test' },
                    { ...good('M5'), id: 5 },
                    'M6',
                    null,
                  ],
                },
                'f',
              ],
            ],
          }
        : { methodResponses: [] };
    const judged: { ids: readonly string[]; known: string[] }[] = [];
    const response: JmapResponse = {
      methodResponses: [['Email/query', { ids: ['M0'], position: 0 }, 'query']],
    };
    await refillQueryPage(
      request,
      response,
      0,
      { removed: 1, served: 2 },
      {
        accountId: 'acc-1',
        lookup: followUp,
        judge: async (ids, known) => {
          judged.push({ ids, known: [...known.keys()] });
          return new Set(['M2']);
        },
      },
    );
    expect(judged).toEqual([{ ids: ['M2', 'M3', 'M4', 'M5', 'M6'], known: ['M2'] }]);
    expect(response.methodResponses[0]?.[1].ids).toEqual(['M0', 'M3']);
  });

  it('adds to a page whose answer had no id list, and to readers whose answers had no list', async () => {
    const host = fakeMailHost(Array.from({ length: 4 }, (_, i) => ({ id: `M${i}`, from: `y${i}@fine.test` })));
    const response: JmapResponse = {
      methodResponses: [
        ['Email/query', { position: 0 }, 'query'],
        ['Email/get', { notFound: ['gone'] }, 'get'],
      ],
    };
    await refillQueryPage(
      request,
      response,
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: host.lookup, judge: async () => new Set() },
    );
    expect(response.methodResponses[0]?.[1].ids).toEqual(['M2']);
    expect(response.methodResponses[1]?.[1]).toEqual({
      notFound: ['gone'],
      list: [expect.objectContaining({ id: 'M2' })],
    });
  });

  it('reads again only Email/get by #ids and SearchSnippet/get by #emailIds, and skips a back-reference that is not an object', async () => {
    const host = fakeMailHost(Array.from({ length: 4 }, (_, i) => ({ id: `M${i}`, from: `y${i}@fine.test` })));
    const ref = { resultOf: 'query', name: 'Email/query', path: '/ids' };
    const odd: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'a', limit: 2 }, 'query'],
        ['Thread/get', { accountId: 'a', '#emailIds': ref }, 'threads'],
        ['Email/get', { accountId: 'a', '#emailIds': ref }, 'wrongKey'],
        ['Email/get', { accountId: 'a', '#ids': null }, 'nullRef'],
        ['Email/get', { accountId: 'a', '#ids': [ref] }, 'listRef'],
      ],
    };
    const response: JmapResponse = { methodResponses: [['Email/query', { ids: ['M0'], position: 0 }, 'query']] };
    await refillQueryPage(
      odd,
      response,
      0,
      { removed: 1, served: 2 },
      { accountId: 'acc-1', lookup: host.lookup, judge: async () => new Set() },
    );
    expect(response.methodResponses[0]?.[1].ids).toEqual(['M0', 'M2']);
    expect(host.requests).toHaveLength(1);
  });
});
