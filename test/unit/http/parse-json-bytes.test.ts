import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseJsonBytes } from '../../../src/http/parse-json-bytes.js';

/** A small seeded generator, so a failure names a case that can be run again. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

const whitespace = [' ', '\n', '\r', '\t'];
const stringParts = [
  'a',
  'Ω',
  '😀',
  '\\"',
  '\\\\',
  '\\n',
  '\\u00e9',
  '\\ud83d\\ude00',
  '\\/',
  '"',
  '\\',
  ' ',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
];

/**
 * JSON text written by hand rather than by JSON.stringify, so it holds what a server may send:
 * whitespace between every token, duplicate keys, "__proto__", escapes, and strings long enough
 * that the containers around them are parsed piece by piece.
 */
function jsonText(random: () => number, depth: number): string {
  const pad = (): string =>
    random() < 0.3 ? whitespace[Math.floor(random() * 4)]!.repeat(1 + Math.floor(random() * 3)) : '';
  const pick = random();
  if (depth > 0 && pick < 0.25) {
    const keys = ['a', 'b', '__proto__', 'constructor', '1', 'id', 'a'];
    const members = Array.from({ length: Math.floor(random() * 6) }, () => {
      const key = keys[Math.floor(random() * keys.length)]!;
      return `${pad()}"${key}"${pad()}:${jsonText(random, depth - 1)}`;
    });
    return `${pad()}{${members.join(',')}${pad()}}${pad()}`;
  }
  if (depth > 0 && pick < 0.5) {
    const items = Array.from({ length: Math.floor(random() * 6) }, () => jsonText(random, depth - 1));
    return `${pad()}[${items.join(',')}${pad()}]${pad()}`;
  }
  if (pick < 0.8) {
    const long = random() < 0.15;
    const length = long ? 8_000 + Math.floor(random() * 24_000) : Math.floor(random() * 12);
    let text = '';
    while (text.length < length) {
      const part = stringParts[Math.floor(random() * stringParts.length)]!;
      // A bare quote or backslash is escaped, as it must be inside a JSON string.
      text += part === '"' ? '\\"' : part === '\\' ? '\\\\' : part;
    }
    return `${pad()}"${text}"${pad()}`;
  }
  const tokens = ['0', '-1.5e3', '12345678901234567890', 'true', 'false', 'null', '3.0', '-0'];
  return `${pad()}${tokens[Math.floor(random() * tokens.length)]}${pad()}`;
}

/** What JSON.parse makes of the text: its value, or that it throws a SyntaxError. */
function outcome(parse: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: parse() };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

/**
 * Parses `bytes` both ways and expects the same outcome (node's deep equality rather than
 * toStrictEqual: the generated objects hold a "constructor" key, which vitest reads as the objects'
 * class and compares by identity). Returns whether the walk gave up and JSON.parse read the whole,
 * the one decode without a range.
 */
function expectSameAsJsonParse(bytes: Buffer): { fellBack: boolean; valid: boolean } {
  const toString = Buffer.prototype.toString;
  let fellBack = false;
  const spy = vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, ...args: unknown[]) {
    if (this === bytes && args.length < 2) fellBack = true;
    return toString.apply(this, args as Parameters<typeof toString>);
  });
  const piecewise = outcome(() => parseJsonBytes(bytes));
  spy.mockRestore();
  const whole = outcome(() => JSON.parse(bytes.toString('utf8')));
  expect(isDeepStrictEqual(piecewise, whole), `differs from JSON.parse for ${bytes.toString('utf8', 0, 80)}…`).toBe(
    true,
  );
  return { fellBack, valid: 'value' in whole };
}

function largeDocuments(count: number, seed: number): string[] {
  const random = seeded(seed);
  const documents: string[] = [];
  while (documents.length < count) {
    const text = jsonText(random, 5);
    // Past a piece's size, so the walk runs; not much past it, so hundreds of cases stay quick.
    const size = Buffer.byteLength(text);
    if (size > 64 * 1024 && size < 192 * 1024) documents.push(text);
  }
  return documents;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parseJsonBytes', () => {
  it('gives exactly what JSON.parse gives for large documents of every shape', () => {
    for (const text of largeDocuments(20, 7)) expect(expectSameAsJsonParse(Buffer.from(text)).fellBack).toBe(false);
  });

  it('agrees with JSON.parse on every damaged document: the same value or the same error', () => {
    const random = seeded(11);
    const damage = ['', ',', '}', ']', '{', '[', ':', '"', '\\', ' ', '\u00a0', '\ufeff', 'x', '0', '\u0001'];
    for (const text of largeDocuments(6, 13)) {
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const at = Math.floor(random() * text.length);
        const cut = random() < 0.5 ? 1 : 0;
        const insert = damage[Math.floor(random() * damage.length)]!;
        const { fellBack, valid } = expectSameAsJsonParse(
          Buffer.from(text.slice(0, at) + insert + text.slice(at + cut)),
        );
        // Damage that leaves valid JSON is walked like any document; only what JSON.parse refuses goes to it whole.
        expect(fellBack).toBe(!valid);
      }
    }
  });

  it('never decodes more than a piece of a large answer at once', () => {
    const text = JSON.stringify({
      methodResponses: [
        [
          'Email/get',
          { list: [{ subject: 'w'.repeat(50_000), name: 'n'.repeat(55_000), small: [1, 2, { x: 'y' }] }] },
          'g',
        ],
      ],
      sessionState: 's',
    });
    const bytes = Buffer.from(text);
    const decoded: number[] = [];
    const toString = Buffer.prototype.toString;
    vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, ...args: unknown[]) {
      const [, start = 0, end = this.length] = args as [string?, number?, number?];
      decoded.push(end - start);
      return toString.apply(this, args as Parameters<typeof toString>);
    });
    expect(parseJsonBytes(bytes)).toStrictEqual(JSON.parse(text));
    expect(bytes.length).toBeGreaterThan(100_000);
    expect(decoded.length).toBeGreaterThan(3);
    expect(Math.max(...decoded)).toBeLessThanOrEqual(60 * 1024);
  });

  it('walks large containers nested as deep as it goes, and hands deeper ones to JSON.parse whole', () => {
    const nested = (depth: number): Buffer =>
      Buffer.from(`${'['.repeat(depth)}"${'d'.repeat(70_000)}"${']'.repeat(depth)}`);
    expect(expectSameAsJsonParse(nested(64))).toEqual({ fellBack: false, valid: true });
    expect(expectSameAsJsonParse(nested(65))).toEqual({ fellBack: true, valid: true });
    const objects = (depth: number): Buffer =>
      Buffer.from(`${'{"k":'.repeat(depth)}"${'d'.repeat(70_000)}"${'}'.repeat(depth)}`);
    expect(expectSameAsJsonParse(objects(64))).toEqual({ fellBack: false, valid: true });
    expect(expectSameAsJsonParse(objects(65))).toEqual({ fellBack: true, valid: true });
    // Siblings at the same depth do not add up: each large container closes before the next opens.
    const siblings = Buffer.from(`[${Array.from({ length: 70 }, () => `["${'s'.repeat(61_500)}"]`).join(',')}]`);
    expect(expectSameAsJsonParse(siblings)).toEqual({ fellBack: false, valid: true });
  });

  it('parses a small container whole when it ends within a piece, and walks it when it does not', () => {
    const small = `{"a":[1,{"b":"${'x'.repeat(1_000)}"}],"c":null}`;
    const text = `[${small},"${'y'.repeat(70_000)}",${small}]`;
    const bytes = Buffer.from(text);
    const toString = Buffer.prototype.toString;
    const decoded: [number, number][] = [];
    vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, ...args: unknown[]) {
      const [, start = 0, end = this.length] = args as [string?, number?, number?];
      decoded.push([start, end]);
      return toString.apply(this, args as Parameters<typeof toString>);
    });
    expect(parseJsonBytes(bytes)).toEqual(JSON.parse(text));
    const smallBytes = Buffer.byteLength(small);
    expect(decoded).toEqual([
      [1, 1 + smallBytes],
      [2 + smallBytes, 2 + smallBytes + 70_002],
      [3 + smallBytes + 70_002, 3 + 2 * smallBytes + 70_002],
    ]);
  });

  it('keeps "__proto__" an own property and the prototype untouched, as JSON.parse does', () => {
    const text = `{"__proto__": {"polluted": true}, "big": "${'z'.repeat(70_000)}", "constructor": 1}`;
    const parsed = parseJsonBytes(Buffer.from(text)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['__proto__', 'big', 'constructor']);
  });

  it('lets the last of duplicate keys win in the place of the first', () => {
    const big = 'q'.repeat(70_000);
    const text = `{"a": 1, "b": "${big}", "a": 2}`;
    const parsed = parseJsonBytes(Buffer.from(text)) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['a', 'b']);
    expect(parsed.a).toBe(2);
  });

  const big = `"${'b'.repeat(70_000)}"`;
  it.each([
    ['a trailing comma in an array', `[${big},]`],
    ['a trailing comma in an object', `{"k":${big},}`],
    ['a comma alone in an object', `{,"k":${big}}`],
    ['a missing colon', `{"k" ${big}}`],
    ['a key that is not a string', `{k:${big}}`],
    ['a number key', `{1:${big}}`],
    ['two values without a comma', `[${big} 1]`],
    ['an element missing between commas', `[${big},,1]`],
    ['data after the document', `[${big}] x`],
    ['a second document', `[${big}][]`],
    ['a byte-order mark before it', `\ufeff[${big}]`],
    ['a no-break space between tokens', `[${big},\u00a01]`],
    ['a vertical tab between tokens', `[${big},\u000b1]`],
    ['an unterminated string', `["${'b'.repeat(70_000)}]`],
    ['a string ending in an escaped quote', `["${'b'.repeat(70_000)}\\"]`],
    ['a string ending in an escaped backslash', `["${'b'.repeat(70_000)}\\\\"]`],
    ['a raw control character in a string', `["${'b'.repeat(70_000)}\u0001"]`],
    ['an unclosed array', `[${big}`],
    ['an unclosed object', `{"k":${big}`],
    ['a bracket closing a brace', `{"k":${big}]`],
    ['a brace closing a bracket', `[${big}}`],
    ['a misspelt literal', `[${big},tru]`],
    ['a number with a leading zero', `[${big},01]`],
    ['a number glued to a string', `[${big},1"x"]`],
    ['an empty document of whitespace', ' '.repeat(70_000)],
    ['nothing but a long string', big],
    ['a long number', '1'.repeat(70_000)],
    ['large arrays nested past the walk’s depth', `${'['.repeat(70)}${big}${']'.repeat(70)}`],
    ['large objects nested past the walk’s depth', `${'{"k":'.repeat(70)}${big}${'}'.repeat(70)}`],
    ['a small container inside a large one, unbalanced', `[${big},[1,2}]`],
  ])('answers as JSON.parse does for %s', (_name, text) => {
    expectSameAsJsonParse(Buffer.from(text));
  });

  it('decodes invalid UTF-8 as JSON.parse of the decoded whole does', () => {
    const head = Buffer.from(`["${'c'.repeat(70_000)}`);
    for (const bad of [[0xe2, 0x82], [0x80], [0xff], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80]]) {
      expectSameAsJsonParse(Buffer.concat([head, Buffer.from(bad), Buffer.from('", "after"]')]));
      expectSameAsJsonParse(Buffer.concat([head, Buffer.from('", '), Buffer.from(bad), Buffer.from(']')]));
    }
  });
});
