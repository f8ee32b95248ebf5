import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import { refillQueryPage } from '../../../src/screen/refill-query-page.js';

// A mailbox of 30 messages, newest first: every third one is held.
const mailbox = Array.from({ length: 30 }, (_, i) => `M${i}`);
const isHeld = (id: string): boolean => Number(id.slice(1)) % 3 === 0;

/** A fake JMAP host for the refill's lookups: Email/query pages and Email/get of any ids. */
function host(messages: readonly string[] = mailbox) {
  const requests: JmapRequest[] = [];
  const lookup = async (request: JmapRequest): Promise<JmapResponse> => {
    requests.push(request);
    const pages = new Map<string, string[]>();
    const methodResponses = request.methodCalls.map(([name, args, callId]): [string, Record<string, unknown>, string] => {
      if (name === 'Email/query') {
        const position = Number(args.position ?? 0);
        const ids = messages.slice(position, position + Number(args.limit));
        pages.set(callId, ids);
        return [name, { ids, position }, callId];
      }
      const reference = args['#ids'] as { resultOf: string } | undefined;
      const ids = reference ? (pages.get(reference.resultOf) ?? []) : (args.ids as string[]);
      return [name, { list: ids.map((id) => ({ id, subject: `subject ${id}` })), notFound: [] }, callId];
    });
    return { methodResponses };
  };
  return { requests, lookup };
}

const listing: JmapRequest = {
  using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
  methodCalls: [
    ['Email/query', { accountId: 'a', filter: { inMailbox: 'inbox' }, limit: 6, calculateTotal: true }, 'query'],
    ['Email/get', { accountId: 'a', '#ids': { resultOf: 'query', name: 'Email/query', path: '/ids' }, properties: ['id', 'subject'] }, 'get'],
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
  it('fills the page back to its limit from the mail after it, in order, and the listing\'s Email/get with it', async () => {
    const { requests, lookup } = host();
    const response = screenedPage();
    const judged: string[] = [];
    await refillQueryPage(listing, response, 0, { removed: 2, served: 6 }, {
      accountId: 'a',
      lookup,
      judge: async (ids) => {
        judged.push(...ids);
        return new Set(ids.filter(isHeld));
      },
    });
    expect(response.methodResponses[0]?.[1]).toMatchObject({ ids: ['M1', 'M2', 'M4', 'M5', 'M7', 'M8'], position: 0 });
    expect((response.methodResponses[1]?.[1].list as { id: string }[]).map((e) => e.id)).toEqual(['M1', 'M2', 'M4', 'M5', 'M7', 'M8']);
    // The next page starts after what the server served, without anchor or total; held ones it met come off the total.
    expect(requests[0]?.methodCalls[0]?.[1]).toEqual({ accountId: 'a', filter: { inMailbox: 'inbox' }, position: 6, limit: 20 });
    expect(judged[0]).toBe('M6');
    expect(response.methodResponses[0]?.[1].total).toBe(28 - judged.filter(isHeld).length);
    expect(requests[1]?.methodCalls).toEqual([['Email/get', { accountId: 'a', properties: ['id', 'subject'], ids: ['M7', 'M8'] }, 'r0']]);
  });

  it('stops after a bounded number of pages when everything after is held, and leaves a short page short', async () => {
    const { requests, lookup } = host(Array.from({ length: 5000 }, (_, i) => `M${i}`));
    const response = screenedPage();
    await refillQueryPage(listing, response, 0, { removed: 2, served: 6 }, { accountId: 'a', lookup, judge: async (ids) => new Set(ids) });
    expect(response.methodResponses[0]?.[1].ids).toEqual(['M1', 'M2', 'M4', 'M5']);
    expect(requests).toHaveLength(5);
  });

  it('does not look further when the server served less than a full page', async () => {
    const { requests, lookup } = host();
    await refillQueryPage(listing, screenedPage(), 0, { removed: 2, served: 5 }, { accountId: 'a', lookup, judge: async () => new Set() });
    expect(requests).toEqual([]);
  });
});
