import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import { ReceiveScreen, SenderFactsCache, senderFactsCacheFor } from '../../../src/screen/receive-screen.js';
import type { SenderFacts } from '../../../src/trust/sender-authentication.js';
import {
  failure,
  fakeAccount,
  fakeMailHost,
  mailbox,
  receiveLayer,
  screenOf,
  sessionOf,
  type FakeMessage,
} from './fake-mail-host.js';

const core = 'urn:ietf:params:jmap:core';
const mail = 'urn:ietf:params:jmap:mail';
const factProperties = ['id', 'from', 'sender', 'header:Authentication-Results:asRaw:all'];

const byIds = (ids: string[], properties: string[] = ['subject']): JmapRequest => ({
  using: [core, mail],
  methodCalls: [['Email/get', { accountId: 'acc-1', ids, properties }, 'g']],
});
const ids = (list: unknown): string[] => (list as { id: string }[]).map((e) => e.id);

describe('ReceiveScreen without rules that restrict receiving', () => {
  it('leaves every answer as it came, looks nothing up, reads the layers once per call and reports nothing held', async () => {
    const host = fakeMailHost(mailbox);
    const account = fakeAccount();
    let layerReads = 0;
    const layers = async () => {
      layerReads += 1;
      return [receiveLayer({ mode: 'open', block: [] }), receiveLayer({ allow: ['fine.test'] }, 'user')];
    };
    const screen = screenOf(host, { account, layers });
    const request = byIds(['M0', 'M1']);
    const answer = await host.lookup(request);
    const before = structuredClone(answer);
    expect(await screen.screen(request, answer)).toBe(answer);
    await screen.screen(request, answer);
    await screen.checkDownload('blob-M0', 'M0');
    expect(answer).toEqual(before);
    expect(host.requests).toHaveLength(1);
    expect(layerReads).toBe(1);
    expect(account.configReads()).toBe(0);
    expect(screen.report()).toBeUndefined();
  });
});

describe('ReceiveScreen under receive rules', () => {
  it('answers a held message asked for by id as notFound, looks its sender up in one batch, and counts it under its rule', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const request = byIds(['M0', 'M1', 'M3', 'M4']);
    const answer = await host.lookup(request);
    await screen.screen(request, answer);
    expect(answer.methodResponses[0]?.[1]).toEqual({
      list: [
        { id: 'M1', subject: 'subject M1' },
        { id: 'M4', subject: 'subject M4' },
      ],
      notFound: ['M0', 'M3'],
    });
    expect(host.requests[1]).toEqual({
      using: [core, mail],
      methodCalls: [
        ['Email/get', { accountId: 'acc-1', ids: ['M0', 'M1', 'M3', 'M4'], properties: factProperties }, 'f0'],
      ],
    });
    expect(screen.report()).toEqual({
      count: 2,
      rules: [{ layer: 'inbox', rule: 'receive.block', count: 2 }],
      requested: ['M0', 'M3'],
    });
    expect([...screen.requestedHeld()]).toEqual(['M0', 'M3']);
  });

  it('judges from the sender facts an answer already carries, without a lookup', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const request = byIds(['M0', 'M1'], ['from', 'sender', 'header:Authentication-Results:asRaw:all', 'subject']);
    const answer = await host.lookup(request);
    await screen.screen(request, answer);
    expect(ids(answer.methodResponses[0]?.[1].list)).toEqual(['M1']);
    expect(host.requests).toHaveLength(1);
  });

  it('looks a sender up once per process and account: later calls judge from memory, another account looks up again', async () => {
    const host = fakeMailHost(mailbox);
    const account = fakeAccount();
    const request = byIds(['M0', 'M1']);
    await screenOf(host, { account }).screen(request, await host.lookup(request));
    expect(host.requests).toHaveLength(2);
    const again = screenOf(host, { account });
    const answer = await host.lookup(request);
    await again.screen(request, answer);
    expect(host.requests).toHaveLength(3);
    expect(answer.methodResponses[0]?.[1].notFound).toEqual(['M0']);
    expect(again.report()?.count).toBe(1);
    await screenOf(host).screen(request, await host.lookup(request));
    expect(host.requests).toHaveLength(5);
  });

  it('looks many senders up 500 ids per Email/get, as many calls per request as the server allows', async () => {
    const many: FakeMessage[] = Array.from({ length: 1201 }, (_, i) => ({
      id: `N${i}`,
      from: i === 1200 ? 'last@spam.test' : `n${i}@fine.test`,
    }));
    const calls = async (
      limits: { maxCallsInRequest?: number },
      mailbox = many,
    ): Promise<{ perRequest: number[][]; callIds: string[] }> => {
      const all = mailbox.map((m) => m.id);
      const host = fakeMailHost(mailbox);
      const screen = screenOf(host, { session: sessionOf(limits) });
      const answer = await host.lookup(byIds(all));
      await screen.screen(byIds(all), answer);
      expect(answer.methodResponses[0]?.[1].notFound).toEqual(['N1200']);
      const lookups = host.requests.slice(1);
      expect(lookups.flatMap((r) => r.methodCalls.flatMap(([, args]) => args.ids as string[]))).toEqual(all);
      return {
        perRequest: lookups.map((r) => r.methodCalls.map(([, args]) => (args.ids as string[]).length)),
        callIds: lookups.flatMap((r) => r.methodCalls.map(([, , id]) => id)),
      };
    };
    expect(await calls({ maxCallsInRequest: 2 })).toEqual({
      perRequest: [[500, 500], [201]],
      callIds: ['f0', 'f1', 'f0'],
    });
    expect((await calls({})).perRequest).toEqual([[500, 500, 201]]);
    expect((await calls({ maxCallsInRequest: 0 })).perRequest).toEqual([[500], [500], [201]]);
    expect((await calls({}, many.slice(201))).perRequest).toEqual([[500, 500]]);
  });

  it('fails the read, showing nothing, when its lookup answers an error', async () => {
    const host = fakeMailHost(mailbox, { failWith: 'serverFail' });
    const answer: JmapResponse = {
      methodResponses: [['Email/get', { list: [{ id: 'M0', subject: 'subject M0' }], notFound: [] }, 'g']],
    };
    const error = await failure(screenOf(host).screen(byIds(['M0']), answer));
    expect(error).toBeInstanceOf(MailboxError);
    expect(error.code).toBe('jmap_request_error');
    expect(error.message).toBe(
      "Checking senders against the operator's receive rules failed: Email/get answered serverFail.",
    );
    expect(error.hint).toBe('Nothing was shown. Run the request again; if it keeps failing, tell your operator.');
    const bare = await failure(
      screenOf(host, { lookup: async () => ({ methodResponses: [['error', {}, 'f0']] }) }).screen(
        byIds(['M0']),
        answer,
      ),
    );
    expect(bare.message).toBe(
      "Checking senders against the operator's receive rules failed: Email/get answered an error.",
    );
  });

  it('holds a message the server lists without its sender, since it cannot be judged, and looks it up again next time', async () => {
    const host = fakeMailHost(mailbox);
    const withoutSender = async (request: JmapRequest): Promise<JmapResponse> => {
      const answer = await host.lookup(request);
      const list = answer.methodResponses[0]?.[1].list as Record<string, unknown>[];
      list.splice(0, 1, { id: 'M1', from: [{ email: 'friend1@fine.test' }] });
      list.push(null as unknown as Record<string, unknown>);
      return answer;
    };
    const account = fakeAccount();
    const screen = screenOf(host, { account, lookup: withoutSender });
    const request = byIds(['M1', 'M2']);
    const answer = await host.lookup(request);
    await screen.screen(request, answer);
    expect(answer.methodResponses[0]?.[1]).toEqual({ list: [{ id: 'M2', subject: 'subject M2' }], notFound: ['M1'] });
    expect(screen.report()).toEqual({
      count: 1,
      rules: [{ layer: 'default', rule: 'receive.unjudged', count: 1 }],
      requested: ['M1'],
    });
    const later = host.requests.length;
    await screenOf(host, { account }).screen(request, await host.lookup(request));
    expect(host.requests.slice(later + 1).flatMap((r) => r.methodCalls.map(([, args]) => args.ids))).toEqual([['M1']]);
  });

  it('holds nothing for an id the server no longer has', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const answer: JmapResponse = {
      methodResponses: [['Email/changes', { created: ['M1', 'gone'], updated: ['M0'], destroyed: [] }, 'c']],
    };
    await screen.screen(
      { using: [core, mail], methodCalls: [['Email/changes', { accountId: 'acc-1', sinceState: '1' }, 'c']] },
      answer,
    );
    expect(answer.methodResponses[0]?.[1]).toEqual({ created: ['M1', 'gone'], updated: [], destroyed: [] });
    expect(screen.report()).toEqual({
      count: 1,
      rules: [{ layer: 'inbox', rule: 'receive.block', count: 1 }],
      requested: [],
    });
  });

  it('takes held mail out of threads, snippets, changes and query changes in one batch', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Thread/get', { accountId: 'acc-1', ids: ['T1', 'T2'] }, 't'],
        ['SearchSnippet/get', { accountId: 'acc-1', emailIds: ['M6', 'M7'] }, 's'],
        ['Email/queryChanges', { accountId: 'acc-1', sinceQueryState: '1' }, 'qc'],
      ],
    };
    const answer: JmapResponse = {
      methodResponses: [
        [
          'Thread/get',
          {
            list: [
              { id: 'T1', emailIds: ['M2', 'M3'] },
              { id: 'T2', emailIds: ['M9'] },
            ],
            notFound: [],
          },
          't',
        ],
        [
          'SearchSnippet/get',
          {
            list: [
              { emailId: 'M6', subject: 'x' },
              { emailId: 'M7', subject: 'y' },
            ],
            notFound: [],
          },
          's',
        ],
        [
          'Email/queryChanges',
          {
            added: [
              { id: 'M12', index: 0 },
              { id: 'M13', index: 1 },
            ],
            removed: [],
          },
          'qc',
        ],
      ],
    };
    await screen.screen(request, answer);
    expect((host.requests[0]?.methodCalls[0]?.[1].ids as string[]).sort()).toEqual([
      'M12',
      'M13',
      'M2',
      'M3',
      'M6',
      'M7',
      'M9',
    ]);
    expect(answer.methodResponses.map(([, args]) => args)).toEqual([
      { list: [{ id: 'T1', emailIds: ['M2'] }], notFound: ['T2'] },
      { list: [{ emailId: 'M7', subject: 'y' }], notFound: ['M6'] },
      // Its index counts only shown mail: M13 follows eight shown messages (M0, M3, M6, M9, M12 held).
      { added: [{ id: 'M13', index: 8 }], removed: [] },
    ]);
    expect(screen.report()).toMatchObject({ count: 10, requested: ['M6'] });
  });

  it('fills a listing page that lost held mail back to its limit, its Email/get included, and totals the shown matches', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const listing: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        ['Email/query', { accountId: 'acc-1', limit: 6, calculateTotal: true }, 'q'],
        [
          'Email/get',
          { accountId: 'acc-1', '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: ['subject'] },
          'g',
        ],
      ],
    };
    const answer = await host.lookup(listing);
    await screen.screen(listing, answer);
    const shown = ['M1', 'M2', 'M4', 'M5', 'M7', 'M8'];
    // The total counts the shown mail of all the matches (20 of 30), not the page's guess.
    expect(answer.methodResponses[0]?.[1]).toEqual({ ids: shown, position: 0, total: 20 });
    expect(ids(answer.methodResponses[1]?.[1].list)).toEqual(shown);
    expect(JSON.stringify(answer)).not.toContain('spam.test');
    expect(screen.report()).toEqual({
      count: 10,
      rules: [{ layer: 'inbox', rule: 'receive.block', count: 10 }],
      requested: [],
    });
  });

  it('shows the operator everything it held, still counting it and naming the ids', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host, { includeHeld: true });
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [...byIds(['M0', 'M1']).methodCalls, ['Blob/get', { accountId: 'acc-1', ids: ['B1'] }, 'b']],
    };
    const answer: JmapResponse = {
      methodResponses: [
        ...(await host.lookup(byIds(['M0', 'M1']))).methodResponses,
        ['Blob/get', { list: [{ id: 'B1', 'data:asText': 'x' }], notFound: [] }, 'b'],
      ],
    };
    const before = structuredClone(answer);
    await screen.screen(request, answer);
    expect(answer).toEqual(before);
    expect(screen.report()).toEqual({
      count: 1,
      rules: [{ layer: 'inbox', rule: 'receive.block', count: 1 }],
      requested: [],
      shownToOperator: ['M0'],
    });
  });

  it('withholds every Blob/get answer and counts the blobs, even in a call that held no message', async () => {
    const screen = screenOf(fakeMailHost(mailbox));
    const blobs = (): JmapResponse => ({
      methodResponses: [
        [
          'Blob/get',
          {
            list: [
              { id: 'B1', 'data:asText': 'x' },
              { id: 'B2', 'data:asText': 'y' },
            ],
            notFound: [],
          },
          'b',
        ],
      ],
    });
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [['Blob/get', { accountId: 'acc-1', ids: ['B1', 'B2'] }, 'b']],
    };
    const answer = blobs();
    await screen.screen(request, answer);
    await screen.screen(request, blobs());
    expect(answer.methodResponses[0]?.[1]).toEqual({ list: [], notFound: ['B1', 'B2'] });
    expect(screen.report()).toEqual({ count: 0, rules: [], requested: [], blobsWithheld: 4 });
  });

  it('counts held mail per layer and rule', async () => {
    const host = fakeMailHost([
      ...mailbox.slice(0, 3),
      { id: 'X1', from: 'boss@other.test' },
      { id: 'X2', from: 'forged@fine.test', results: [' agent-mailbox.test; dmarc=fail header.from=fine.test'] },
    ]);
    const screen = screenOf(host, {
      layers: async () => [
        receiveLayer({ block: ['spam.test'] }, 'user'),
        receiveLayer({ mode: 'allowlist', allow: ['fine.test'] }),
      ],
    });
    const request = byIds(['M0', 'M1', 'M2', 'X1', 'X2']);
    const answer = await host.lookup(request);
    await screen.screen(request, answer);
    expect(ids(answer.methodResponses[0]?.[1].list)).toEqual(['M1', 'M2']);
    expect(screen.report()?.rules).toEqual([
      { layer: 'user', rule: 'receive.block', count: 1 },
      { layer: 'inbox', rule: 'receive.mode=allowlist', count: 2 },
    ]);
  });
});

describe('ReceiveScreen and the Sender field', () => {
  // From a friend, sent by a blocked address: the block-list applies to the Sender too.
  const relayed: FakeMessage[] = [
    { id: 'R1', from: 'friend@fine.test', sender: 'offers@spam.test' },
    { id: 'R2', from: 'friend@fine.test' },
  ];
  /** The host, its answers stripped of `sender` (a server that leaves a property out). */
  const withoutSender = (host: ReturnType<typeof fakeMailHost>) => async (request: JmapRequest) => {
    const answer = await host.lookup(request);
    for (const [, args] of answer.methodResponses) {
      for (const email of Array.isArray(args.list) ? (args.list as Record<string, unknown>[]) : []) delete email.sender;
      for (const email of Object.values((args.parsed ?? {}) as Record<string, Record<string, unknown>>))
        delete email.sender;
    }
    return answer;
  };

  it('holds a message whose Sender is blocked, looked up for a listing, and one parsed without asking for its Sender', async () => {
    const host = fakeMailHost(relayed);
    const listing: JmapRequest = {
      using: [core, mail],
      methodCalls: [['Email/query', { accountId: 'acc-1' }, 'q']],
    };
    const answer = await host.lookup(listing);
    await screenOf(host).screen(listing, answer);
    expect(answer.methodResponses[0]?.[1].ids).toEqual(['R2']);
    const parse: JmapRequest = {
      using: [core, mail],
      methodCalls: [
        [
          'Email/parse',
          { accountId: 'acc-1', blobIds: ['blob-R1'], properties: ['from', 'header:Authentication-Results:asRaw:all'] },
          'p',
        ],
      ],
    };
    const parsed = await host.lookup(parse);
    await screenOf(host).screen(parse, parsed);
    expect(parsed.methodResponses[0]?.[1]).toEqual({ parsed: {}, notFound: ['blob-R1'] });
    // An Email/get that asks for From and the verdicts but not the Sender is not judged from its own answer.
    const partial = byIds(['R1', 'R2'], ['from', 'header:Authentication-Results:asRaw:all']);
    const got = await host.lookup(partial);
    await screenOf(host).screen(partial, got);
    expect(ids(got.methodResponses[0]?.[1].list)).toEqual(['R2']);
  });

  it('holds as unjudged a message whose lookup comes back without its Sender, listed or parsed', async () => {
    const host = fakeMailHost(relayed);
    const request = byIds(['R1', 'R2']);
    const answer = await host.lookup(request);
    const screen = screenOf(host, { account: fakeAccount(), lookup: withoutSender(host) });
    await screen.screen(request, answer);
    expect(answer.methodResponses[0]?.[1]).toEqual({ list: [], notFound: ['R1', 'R2'] });
    expect(screen.report()?.rules).toEqual([{ layer: 'default', rule: 'receive.unjudged', count: 2 }]);
    const parse: JmapRequest = {
      using: [core, mail],
      methodCalls: [['Email/parse', { accountId: 'acc-1', blobIds: ['blob-R1'], properties: ['subject'] }, 'p']],
    };
    const parsed = await host.lookup(parse);
    await screenOf(host, { account: fakeAccount(), lookup: withoutSender(host) }).screen(parse, parsed);
    expect(parsed.methodResponses[0]?.[1]).toEqual({ parsed: {}, notFound: ['blob-R1'] });
    // A removal the reader cannot be told about: the message is not shown, so it was never listed.
    const changes: JmapRequest = {
      using: [core, mail],
      methodCalls: [['Email/queryChanges', { accountId: 'acc-1', sinceQueryState: '1' }, 'qc']],
    };
    const removal: JmapResponse = {
      methodResponses: [
        ['Email/queryChanges', { oldQueryState: '1', newQueryState: '2', removed: ['R1'], added: [] }, 'qc'],
      ],
    };
    await screenOf(host, { account: fakeAccount(), lookup: withoutSender(host) }).screen(changes, removal);
    expect(removal.methodResponses[0]?.[1].removed).toEqual([]);
  });
});

describe('ReceiveScreen and a content filter', () => {
  it('takes a held message a text filter found out of a page that asks for no count, and reports no count of it', async () => {
    const words: FakeMessage[] = mailbox.map((m, i) => ({ ...m, text: i === 0 ? 'wire 4471' : 'hello' }));
    const host = fakeMailHost(words);
    const screen = screenOf(host);
    const request: JmapRequest = {
      using: [core, mail],
      methodCalls: [['Email/query', { accountId: 'acc-1', filter: { text: '4471' }, limit: 5 }, 'q']],
    };
    const answer = await host.lookup(request);
    await screen.screen(request, answer);
    expect(answer.methodResponses[0]?.[1].ids).toEqual([]);
    expect(screen.report()).toBeUndefined();
  });
});

describe("ReceiveScreen reading the operator's files", () => {
  it("reads the inbox's policy file when no layers are given", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'receive-screen-'));
    try {
      await writeFile(join(dir, 'policy.json'), JSON.stringify({ version: 1, receive: { block: ['spam.test'] } }), {
        mode: 0o600,
      });
      const host = fakeMailHost(mailbox);
      const screen = new ReceiveScreen({
        account: fakeAccount({ dir, home: dir }),
        session: sessionOf(),
        lookup: host.lookup,
      });
      const request = byIds(['M0', 'M1']);
      const answer = await host.lookup(request);
      await screen.screen(request, answer);
      expect(answer.methodResponses[0]?.[1].notFound).toEqual(['M0']);
      expect(screen.report()?.rules).toEqual([{ layer: 'inbox', rule: 'receive.block', count: 1 }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const facts = (email: string): SenderFacts => ({ from: [{ email }], authenticationResults: [] });

describe('SenderFactsCache', () => {
  it('keeps the first facts of a message and forgets the oldest entries beyond its bound', () => {
    const cache = new SenderFactsCache(2);
    cache.set('M1', facts('a@x.test'));
    cache.set('M1', facts('changed@x.test'));
    cache.set('M2', facts('b@x.test'));
    expect(cache.get('M1')).toEqual(facts('a@x.test'));
    cache.set('M3', facts('c@x.test'));
    expect([cache.get('M1'), cache.get('M2'), cache.get('M3')]).toEqual([
      undefined,
      facts('b@x.test'),
      facts('c@x.test'),
    ]);
    cache.set('M2', facts('again@x.test'));
    expect(cache.get('M3')).toEqual(facts('c@x.test'));
  });

  it('holds twenty thousand messages by default', () => {
    const cache = new SenderFactsCache();
    for (let i = 0; i <= 20_000; i++) cache.set(`M${i}`, facts(`${i}@x.test`));
    expect(cache.get('M0')).toBeUndefined();
    expect(cache.get('M1')).toEqual(facts('1@x.test'));
    expect(cache.get('M20000')).toEqual(facts('20000@x.test'));
  });

  it('is one cache per account for the life of the process', () => {
    const account = {};
    senderFactsCacheFor(account).set('M1', facts('a@x.test'));
    expect(senderFactsCacheFor(account).get('M1')).toEqual(facts('a@x.test'));
    expect(senderFactsCacheFor({}).get('M1')).toBeUndefined();
  });
});
