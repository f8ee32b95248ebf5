import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import { contentAnswerIndexes, readsContent } from '../../../src/screen/mail-method-answers.js';

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
