import { describe, expect, it, vi } from 'vitest';
import { jsonChunks } from '../../../src/embedded/http/json-pieces.js';

const joined = (value: unknown): string => Buffer.concat(jsonChunks(value)).toString('utf8');

/** An Email/get answer like the one a 250 KB hostile header section makes. */
function hostileAnswer(): unknown {
  const name = Array.from({ length: 9_000 }, (_, i) => (i % 50 === 49 ? 'ceo@bank.test' : 'Chief ✓')).join(' ');
  const email = {
    id: 'M1',
    from: [{ name, email: 'ceo@bank.test' }],
    sender: null,
    subject: `URGENT ${'wire '.repeat(9_000)}`,
    'header:Authentication-Results:asRaw:all': Array.from(
      { length: 40 },
      (_, i) => ` mx${i}; dmarc=pass${' x'.repeat(400)}`,
    ),
    keywords: {},
    ignored: undefined,
  };
  const small = { id: 'M2', from: [{ name: 'Friend', email: 'f@fine.example' }], subject: 'hi', sender: null };
  return {
    methodResponses: [
      ['Email/query', { ids: ['M1', 'M2'], position: 0 }, 'q'],
      [
        'Email/get',
        { accountId: 'a', state: '1', list: [email, ...Array.from({ length: 19 }, () => small)], notFound: [] },
        'g',
      ],
    ],
    sessionState: 's',
  };
}

describe('jsonChunks (a JSON answer in pieces under V8 large-object size)', () => {
  it('gives exactly JSON.stringify of a large answer, in chunks none of which nears 128 KiB', () => {
    const answer = hostileAnswer();
    const expected = JSON.stringify(answer);
    expect(expected.length).toBeGreaterThan(140_000);
    expect(joined(answer)).toBe(expected);
    const chunks = jsonChunks(answer);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.toString('utf8').length).toBeLessThan(100_000);
  });

  it('never makes the whole large answer as one string on the way', () => {
    const stringify = JSON.stringify;
    const made: number[] = [];
    const spy = vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof stringify>) => {
      const text = stringify(...args);
      made.push(text?.length ?? 0);
      return text;
    });
    try {
      jsonChunks(hostileAnswer());
    } finally {
      spy.mockRestore();
    }
    expect(made.length).toBeGreaterThan(10);
    expect(Math.max(...made)).toBeLessThan(100_000);
  });

  it("follows JSON.stringify's rules where it splits: skipped and null-ed entries, toJSON, key order, other prototypes", () => {
    const big = 'y'.repeat(40_000);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { z: big, y: [big], a: 1 });
    class Box {
      constructor(readonly inner = big) {}
    }
    const values: unknown[] = [
      { a: undefined, b: () => 1, c: Symbol('s'), d: big, e: [undefined, () => 1, big, null], f: new Date(0) },
      [big, big, { toJSON: () => 'replaced' }, { toJSON: () => undefined }],
      // eslint-disable-next-line no-sparse-arrays
      [big, , big],
      { only: undefined, list: [big, big] },
      { empty: {}, none: [], nested: { deeper: { deepest: [big, big, big] } } },
      { 2: big, 1: big, b: big, a: big },
      bare,
      [new Box(), new Box()],
      ['ünïcödé ✓ 📎'.repeat(5_000), { '\u2028key"': '\\' }],
      'just a string',
      42,
      null,
    ];
    for (const value of values) expect(joined(value)).toBe(JSON.stringify(value));
    expect(jsonChunks(undefined)).toEqual([]);
  });

  it('leaves a small answer in one chunk', () => {
    expect(jsonChunks({ methodResponses: [], sessionState: 's' })).toHaveLength(1);
  });
});
