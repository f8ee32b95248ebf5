import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import {
  contentAnswerIndexes,
  factsInResponse,
  namedEmailIds,
  readsContent,
  removeHeld,
  withholdBlobReads,
} from '../../../src/screen/mail-method-answers.js';

const held = new Set(['H1', 'H2']);
const isHeld = (id: string): boolean => held.has(id);

describe("the receive screen's view of mail method answers", () => {
  const request: JmapRequest = {
    using: [],
    methodCalls: [
      ['Email/query', { accountId: 'a', limit: 4 }, 'q'],
      ['Email/get', { accountId: 'a', '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' } }, 'g'],
      ['Email/get', { accountId: 'a', ids: ['H1', 'S9', 'H1'] }, 'byId'],
      ['Thread/get', { accountId: 'a', ids: ['T1', 'T2'] }, 't'],
      ['SearchSnippet/get', { accountId: 'a', emailIds: ['H2', 'S1'], filter: { text: 'x' } }, 's'],
      ['Email/changes', { accountId: 'a', sinceState: '1' }, 'c'],
      ['Email/queryChanges', { accountId: 'a', sinceQueryState: '1' }, 'qc'],
    ],
  };
  const response = (): JmapResponse => ({
    methodResponses: [
      ['Email/query', { ids: ['S1', 'H1', 'S2', 'H2'], position: 0, total: 9 }, 'q'],
      [
        'Email/get',
        {
          list: [
            { id: 'S1', from: [{ email: 'a@x.test' }], sender: null, 'header:Authentication-Results:asRaw:all': [] },
            { id: 'H1' },
            { id: 'S2' },
            { id: 'H2' },
          ],
          notFound: [],
        },
        'g',
      ],
      ['Email/get', { list: [{ id: 'H1' }, { id: 'S9' }], notFound: [] }, 'byId'],
      [
        'Thread/get',
        {
          list: [
            { id: 'T1', emailIds: ['S1', 'H1', 'S2'] },
            { id: 'T2', emailIds: ['H2'] },
          ],
          notFound: [],
        },
        't',
      ],
      [
        'SearchSnippet/get',
        {
          list: [
            { emailId: 'H2', subject: 'held' },
            { emailId: 'S1', subject: 'shown' },
          ],
          notFound: null,
        },
        's',
      ],
      ['Email/changes', { created: ['H2', 'S3'], updated: ['H1', 'S1'], destroyed: ['H9'] }, 'c'],
      [
        'Email/queryChanges',
        {
          added: [
            { id: 'H1', index: 0 },
            { id: 'S4', index: 1 },
          ],
          removed: ['H2'],
        },
        'qc',
      ],
    ],
  });

  it('names every email id the answers mention, and takes sender facts only from records that carry From, Sender and Authentication-Results', () => {
    const answer = response();
    expect([...namedEmailIds(answer)].sort()).toEqual(['H1', 'H2', 'S1', 'S2', 'S3', 'S4', 'S9']);
    expect([...factsInResponse(answer).keys()]).toEqual(['S1']);
  });

  it('takes held messages out of every answer, answers a held id asked for by id as notFound, and says which query pages lost ids', () => {
    const answer = response();
    const removal = removeHeld(request, answer, isHeld);
    const args = (callId: string) => answer.methodResponses.find(([, , id]) => id === callId)?.[1];
    expect(args('q')).toMatchObject({ ids: ['S1', 'S2'], total: 7 });
    expect((args('g')?.list as { id: string }[]).map((e) => e.id)).toEqual(['S1', 'S2']);
    expect(args('g')?.notFound).toEqual([]);
    expect(args('byId')).toMatchObject({ list: [{ id: 'S9' }], notFound: ['H1'] });
    expect(args('t')).toEqual({ list: [{ id: 'T1', emailIds: ['S1', 'S2'] }], notFound: ['T2'] });
    expect(args('s')).toMatchObject({ list: [{ emailId: 'S1', subject: 'shown' }], notFound: ['H2'] });
    expect(args('c')).toMatchObject({ created: ['S3'], updated: ['S1'], destroyed: ['H9'] });
    expect(args('qc')).toMatchObject({ added: [{ id: 'S4', index: 1 }], removed: ['H2'] });
    expect([...removal.requested].sort()).toEqual(['H1', 'H2']);
    expect([...removal.queries]).toEqual([[0, { removed: 2, served: 4 }]]);
  });

  it('leaves an answer without held mail exactly as it was', () => {
    const answer = response();
    const before = JSON.stringify(answer);
    const removal = removeHeld(request, answer, () => false);
    expect(JSON.stringify(answer)).toBe(before);
    expect(removal.queries.size).toBe(0);
  });

  it("names the ids of each method's answer on its own", () => {
    const alone = (name: string, args: Record<string, unknown>): string[] => [
      ...namedEmailIds({ methodResponses: [[name, args, 'x']] }),
    ];
    expect(alone('Email/get', { list: [{ id: 'A' }] })).toEqual(['A']);
    expect(alone('Email/query', { ids: ['A', 'B'] })).toEqual(['A', 'B']);
    expect(alone('Email/queryChanges', { added: [{ id: 'A', index: 0 }], removed: ['R'] })).toEqual(['A']);
    expect(alone('Email/changes', { created: ['A'], updated: ['B'], destroyed: ['D'] })).toEqual(['A', 'B']);
    expect(alone('Thread/get', { list: [{ id: 'T', emailIds: ['A', 'B'] }] })).toEqual(['A', 'B']);
    expect(alone('SearchSnippet/get', { list: [{ emailId: 'A' }] })).toEqual(['A']);
    expect(
      alone('Mailbox/get', {
        list: [{ id: 'MB', emailIds: ['A'], emailId: 'D' }],
        ids: ['B'],
        created: ['C'],
        added: [{ id: 'E' }],
      }),
    ).toEqual([]);
    expect(alone('Email/queryChanges', { added: [{ index: 0 }, { id: 7, index: 1 }, { id: 'A', index: 2 }] })).toEqual([
      'A',
    ]);
  });

  it("reads past malformed entries without failing, never naming or showing what is not a held id's record", () => {
    const junk: JmapResponse = {
      methodResponses: [
        [
          'Email/get',
          {
            list: [
              null,
              'H1',
              ['H1'],
              { id: 5 },
              { from: [], 'header:Authentication-Results:asRaw:all': [] },
              { id: 'H1' },
              { id: 'S1' },
            ],
            notFound: [],
          },
          'g',
        ],
        ['Email/query', { ids: ['H1', 5, null, 'S1'], position: 0 }, 'q'],
        [
          'Thread/get',
          {
            list: [null, { emailIds: ['S2'] }, { id: 'T0', emailIds: [] }, { id: 'T1', emailIds: ['H2', 7] }],
            notFound: null,
          },
          't',
        ],
        ['SearchSnippet/get', { list: [{ emailId: 9 }, { emailId: 'S1' }] }, 's'],
        ['Email/changes', { created: ['H2', 3], updated: null }, 'c'],
        ['Blob/get', { list: [{ id: 'B1' }, { size: 3 }, 'B2'] }, 'b'],
      ],
    };
    expect([...namedEmailIds(junk)].sort()).toEqual(['H1', 'H2', 'S1', 'S2']);
    expect([...factsInResponse(junk).keys()]).toEqual([]);
    // None of these answers has its call in the request (the call ids differ), so nothing was asked for by id.
    const removal = removeHeld({ using: [], methodCalls: [] }, junk, isHeld);
    expect(junk.methodResponses.map(([, args]) => args)).toEqual([
      { list: [{ id: 5 }, { from: [], 'header:Authentication-Results:asRaw:all': [] }, { id: 'S1' }], notFound: [] },
      { ids: ['S1'], position: 0 },
      { list: [{ emailIds: ['S2'] }, { id: 'T0', emailIds: [] }], notFound: null },
      { list: [{ emailId: 9 }, { emailId: 'S1' }] },
      { created: [], updated: [] },
      { list: [{ id: 'B1' }, { size: 3 }, 'B2'] },
    ]);
    expect(removal.requested.size).toBe(0);
    expect(withholdBlobReads(junk)).toBe(1);
    expect(junk.methodResponses[5]?.[1]).toEqual({ list: [], notFound: ['B1'] });
  });

  it('matches each answer to its own call when two calls of a request share a call id', () => {
    const shared: JmapRequest = {
      using: [],
      methodCalls: [
        ['Email/query', { accountId: 'a' }, 'x'],
        ['Email/get', { accountId: 'a', ids: ['H1'] }, 'x'],
        ['Thread/get', { accountId: 'a', ids: ['T2'] }, 'x'],
      ],
    };
    const answer: JmapResponse = {
      methodResponses: [
        ['Email/query', { ids: ['H1', 'S1'] }, 'x'],
        ['Email/get', { list: [{ id: 'H1' }], notFound: [] }, 'x'],
        ['Thread/get', { list: [{ id: 'T2', emailIds: ['H2'] }], notFound: [] }, 'x'],
      ],
    };
    const removal = removeHeld(shared, answer, isHeld);
    expect(answer.methodResponses.map(([, args]) => args)).toEqual([
      { ids: ['S1'] },
      { list: [], notFound: ['H1'] },
      { list: [], notFound: ['T2'] },
    ]);
    expect([...removal.requested]).toEqual(['H1']);
    expect([...removal.queries]).toEqual([[0, { removed: 1, served: 2 }]]);
  });

  it('withholds every Blob/get answer, naming its blobs in notFound', () => {
    const answer: JmapResponse = {
      methodResponses: [['Blob/get', { list: [{ id: 'B1', 'data:asText': 'secret' }], notFound: ['B0'] }, 'b']],
    };
    expect(withholdBlobReads(answer)).toBe(1);
    expect(answer.methodResponses[0]?.[1]).toEqual({ list: [], notFound: ['B0', 'B1'] });
  });
});

/** Which filters read what a message says (held mail they find is held without a count), and which answers carry their ids. */

describe('readsContent', () => {
  it('says no for where a message is, when it came, its size and flags, nested in operators', () => {
    expect(readsContent(undefined)).toBe(false);
    expect(readsContent(null)).toBe(false);
    expect(
      readsContent({
        inMailbox: 'i',
        after: '2026-01-01T00:00:00Z',
        hasKeyword: '$seen',
        minSize: 1,
        hasAttachment: true,
      }),
    ).toBe(false);
    expect(
      readsContent({
        operator: 'AND',
        conditions: [{ inMailbox: 'i' }, { operator: 'NOT', conditions: [{ notKeyword: '$seen' }] }],
      }),
    ).toBe(false);
  });

  it.each([
    ['inMailbox', 'i'],
    ['inMailboxOtherThan', ['i']],
    ['before', '2026-01-01T00:00:00Z'],
    ['after', '2026-01-01T00:00:00Z'],
    ['minSize', 1],
    ['maxSize', 9],
    ['allInThreadHaveKeyword', '$seen'],
    ['someInThreadHaveKeyword', '$seen'],
    ['noneInThreadHaveKeyword', '$seen'],
    ['hasKeyword', '$seen'],
    ['notKeyword', '$seen'],
    ['hasAttachment', true],
  ])('says no for the place condition %s alone', (key, value) => {
    expect(readsContent({ [key]: value })).toBe(false);
    expect(readsContent({ [key]: value, subject: 'x' })).toBe(true);
  });

  it('says yes for any condition on what the sender wrote, or one it does not know, anywhere in the tree', () => {
    for (const key of ['text', 'from', 'to', 'cc', 'bcc', 'subject', 'body', 'header', 'somethingNew'])
      expect(readsContent({ [key]: 'x' }), key).toBe(true);
    expect(
      readsContent({
        operator: 'OR',
        conditions: [{ inMailbox: 'i' }, { operator: 'AND', conditions: [{ body: 'x' }] }],
      }),
    ).toBe(true);
    expect(readsContent({ operator: 'OR' })).toBe(true);
    expect(readsContent('text')).toBe(true);
  });
});

describe('contentAnswerIndexes', () => {
  it('names the content queries, their changes and the calls that read their ids, and nothing else', () => {
    const ref = (resultOf: string) => ({ resultOf, name: 'Email/query', path: '/ids' });
    const request: JmapRequest = {
      using: [],
      methodCalls: [
        ['Email/query', { filter: { text: 'x' } }, 'a'],
        ['Email/get', { '#ids': ref('a') }, 'ga'],
        ['Email/query', { filter: { inMailbox: 'i' } }, 'b'],
        ['SearchSnippet/get', { '#emailIds': ref('b') }, 'sb'],
        ['Email/queryChanges', { filter: { from: 'x' }, sinceQueryState: '1' }, 'c'],
        ['Email/query', { '#filter': ref('z') }, 'd'],
        ['Email/get', { ids: ['M1'] }, 'g'],
      ],
    };
    const response: JmapResponse = { methodResponses: request.methodCalls.map(([name, , id]) => [name, {}, id]) };
    expect([...contentAnswerIndexes(request, response)]).toEqual([0, 1, 4, 5]);
  });
});
