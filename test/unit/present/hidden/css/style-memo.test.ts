import { describe, expect, it } from 'vitest';
import type { Cascaded } from '../../../../../src/present/hidden/css/cascade-declarations.js';
import { StyleMemo } from '../../../../../src/present/hidden/css/style-memo.js';
import type { RenderState } from '../../../../../src/present/hidden/compute-render-state.js';

describe('what one analysis reuses', () => {
  it('parses each distinct style attribute once', () => {
    const memo = new StyleMemo();
    const first = memo.declarationsOf('display:none; color: red !important');
    expect(first).toEqual([
      { property: 'display', value: 'none', isImportant: false },
      { property: 'color', value: 'red', isImportant: true },
    ]);
    expect(memo.declarationsOf('display:none; color: red !important')).toBe(first);
    expect(memo.declarationsOf('display:none; color: red')).not.toBe(first);
    expect(memo.declarationsOf('')).toEqual([]);
  });

  it('computes each cascade once per key', () => {
    const memo = new StyleMemo();
    let calls = 0;
    const compute = (): Cascaded => {
      calls++;
      return new Map();
    };
    const first = memo.cascade('a', compute);
    expect(memo.cascade('a', compute)).toBe(first);
    expect(calls).toBe(1);
    expect(memo.cascade('b', compute)).not.toBe(first);
    expect(calls).toBe(2);
  });

  it('computes each state once per parent and key', () => {
    const memo = new StyleMemo();
    const parentA = { display: 'block' } as unknown as RenderState;
    const parentB = { display: 'block' } as unknown as RenderState;
    const made: string[] = [];
    const compute = (name: string) => (): RenderState => {
      made.push(name);
      return { display: name } as unknown as RenderState;
    };
    const first = memo.state(parentA, 'k', compute('a k'));
    expect(memo.state(parentA, 'k', compute('again'))).toBe(first);
    expect(memo.state(parentB, 'k', compute('b k')).display).toBe('b k');
    expect(memo.state(parentA, 'j', compute('a j')).display).toBe('a j');
    expect(memo.state(parentB, 'k', compute('again'))).not.toBe(first);
    expect(made).toEqual(['a k', 'b k', 'a j']);
  });

  it('numbers objects for keys, the same number each time', () => {
    const memo = new StyleMemo();
    const a = {};
    const b = {};
    expect(memo.idOf(a)).toBe(memo.idOf(a));
    expect(memo.idOf(b)).not.toBe(memo.idOf(a));
  });
});
