import { describe, expect, it } from 'vitest';
import { clip, shownName } from '../../../src/present/shown-limits.js';

describe('what a stranger-written header may take of a line', () => {
  it('keeps a name of 200 characters whole and cuts a longer one at 200 code points, with an ellipsis', () => {
    expect(shownName('a'.repeat(200))).toBe('a'.repeat(200));
    expect(shownName('a'.repeat(201))).toBe(`${'a'.repeat(200)}…`);
    expect(shownName(`${'Chief '.repeat(10_000)}ceo@bank.test`)).toHaveLength(201);
    expect(shownName(undefined)).toBe('');
  });

  it('counts code points, never splitting an astral character, and stays bounded for any mix', () => {
    const faces = '😀'.repeat(150);
    expect(clip(faces, 200)).toBe(faces);
    expect(clip('😀'.repeat(300), 200)).toBe(`${'😀'.repeat(200)}…`);
    expect(clip(`${'😀'.repeat(200)}x`, 200)).toBe(`${'😀'.repeat(200)}…`);
    expect(clip(`${'a'.repeat(199)}😀😀`, 200)).toBe(`${'a'.repeat(199)}😀…`);
    expect(clip('😀'.repeat(100_000), 5)).toBe('😀😀😀😀😀…');
  });
});
