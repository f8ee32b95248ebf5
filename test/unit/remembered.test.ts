import { describe, expect, it } from 'vitest';
import { rememberedByText } from '../../src/remembered.js';

// What a long session works out again and again (domains, list entries, session URLs) is kept by its text:
// worked out once, an empty answer too, within a bound in count and in length.

describe('rememberedByText', () => {
  it('works a text out once, an undefined answer too, and the same answer comes back', () => {
    const calls: string[] = [];
    const upper = rememberedByText(
      (text: string) => (calls.push(text), text === 'none' ? undefined : text.toUpperCase()),
    );
    expect([upper('a'), upper('a'), upper('none'), upper('none'), upper('b')]).toEqual([
      'A',
      'A',
      undefined,
      undefined,
      'B',
    ]);
    expect(calls).toEqual(['a', 'none', 'b']);
  });

  it('keeps at most 4,096 texts, and works out afresh any text longer than 320 characters', () => {
    const calls: string[] = [];
    const same = rememberedByText((text: string) => (calls.push(text), text));
    same('first');
    for (let i = 0; i < 4_096; i++) same(`other-${i}`);
    calls.length = 0;
    same('first');
    expect(calls, 'the least recently used went first: the first was forgotten').toEqual(['first']);
    const long = 'x'.repeat(321);
    same(long);
    same(long);
    expect(calls.filter((text) => text === long)).toHaveLength(2);
    same('y'.repeat(320));
    same('y'.repeat(320));
    expect(calls.filter((text) => text.startsWith('y'))).toHaveLength(1);
  });
});
