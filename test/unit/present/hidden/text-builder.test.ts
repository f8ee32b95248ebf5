import { describe, expect, it } from 'vitest';
import { ObjectIds } from '../../../../src/present/hidden/object-ids.js';
import { TextBuilder } from '../../../../src/present/hidden/text-builder.js';

/** Builds text from pieces; `|` ends a line. Returns the text and what each append returned. */
function build(pieces: readonly string[]): { text: string; appended: string[] } {
  const builder = new TextBuilder();
  const appended: string[] = [];
  for (const piece of pieces) {
    if (piece === '|') builder.breakLine();
    else appended.push(builder.append(piece));
  }
  return { text: builder.toString(), appended };
}

describe('text as a reader takes it in', () => {
  it.each<[string, string[], string]>([
    ['collapses a whitespace run inside a piece', ['a \t\n b'], 'a b'],
    ['joins pieces without space between them', ['a', 'b'], 'ab'],
    ['keeps a space that ends a piece', ['a ', 'b'], 'a b'],
    ['keeps a space that starts a piece', ['a', ' b'], 'a b'],
    ['keeps a piece of whitespace between two', ['a', ' \n ', 'b'], 'a b'],
    ['reads several spaces between pieces as one', ['a ', '  ', ' b'], 'a b'],
    ['reads an empty piece as nothing', ['a', '', 'b'], 'ab'],
    ['drops whitespace at the start of the text', ['  ', ' a'], 'a'],
    ['drops whitespace at the end of the text', ['a', '  '], 'a'],
    ['breaks a line between blocks', ['a', '|', 'b'], 'a\nb'],
    ['drops a space pending at a line break', ['a ', '|', 'b'], 'a\nb'],
    ['drops whitespace at the start of a line', ['a', '|', ' ', ' b'], 'a\nb'],
    ['breaks a line once however many blocks end', ['a', '|', '|', '|', 'b'], 'a\nb'],
    ['breaks no line before any text', ['|', '|', 'a'], 'a'],
    ['breaks no line after the last text', ['a', '|'], 'a'],
    ['a pending space after a whitespace piece, then a word', ['a', ' ', 'b ', 'c'], 'a b c'],
    ['a pending space cleared by a word without one', ['a ', 'b', 'c'], 'a bc'],
  ])('%s', (_name, pieces, text) => {
    expect(build(pieces).text).toBe(text);
  });

  it('returns each piece as appended: collapsed and trimmed, empty for whitespace', () => {
    expect(build(['  a  b ', ' \t ', '', 'c']).appended).toEqual(['a b', '', '', 'c']);
  });

  it('is empty when nothing was appended', () => {
    expect(new TextBuilder().toString()).toBe('');
  });
});

describe('numbers for objects', () => {
  it('numbers objects from 0 in the order first asked, the same number every time', () => {
    const ids = new ObjectIds();
    const [a, b, c] = [{}, {}, []];
    expect([ids.idOf(a), ids.idOf(b), ids.idOf(a), ids.idOf(c), ids.idOf(b)]).toEqual([0, 1, 0, 2, 1]);
  });

  it('numbers apart in each instance', () => {
    const shared = {};
    const first = new ObjectIds();
    const second = new ObjectIds();
    first.idOf({});
    expect([first.idOf(shared), second.idOf(shared)]).toEqual([1, 0]);
  });
});
