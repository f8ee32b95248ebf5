import { describe, expect, it } from 'vitest';
import { mentionsHtml } from '../../../src/present/html-to-text.js';

describe('mentionsHtml (whether an answer needs the HTML converter)', () => {
  const cases: [string, unknown][] = [
    ['a bare string', 'text/html'],
    [
      'a part type deep in a list',
      { methodResponses: [['Email/get', { list: [{ htmlBody: [{ type: 'text/html' }] }] }, 'g']] },
    ],
    ['inside a longer string', { bodyStructure: { type: 'multipart/alternative; x=text/html' } }],
    ['a key', { bodyValues: { 'text/html': 1 } }],
  ];
  it.each(cases)('finds "text/html" in %s, as the answer serialised would show it', (_label, value) => {
    expect(mentionsHtml(value)).toBe(true);
    expect(JSON.stringify(value).includes('text/html')).toBe(true);
  });

  it('finds none where the serialised answer has none, whatever its size', () => {
    const big = {
      list: Array.from({ length: 200_000 }, (_, i) => ({ id: `M${i}`, type: 'text/plain', size: i, n: null })),
    };
    expect(mentionsHtml(big)).toBe(false);
    expect(mentionsHtml({ type: 'text/HTML ', other: 'text /html' })).toBe(false);
    expect(mentionsHtml([1, true, null, 'text/htm'])).toBe(false);
  });
});
