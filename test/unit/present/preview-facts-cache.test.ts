import { describe, expect, it } from 'vitest';
import {
  assessMail,
  previewFactsKey,
  type AssessOptions,
  type PreviewFacts,
} from '../../../src/present/assess-mail.js';
import { BoundedLru } from '../../../src/remembered.js';

const ours = 'agent-mailbox.test';
const hiddenHtml = `<html><body><div style="display:none">Preheader: big savings inside</div>
<p>Visible greeting for the reader.</p><p style="font-size:0">tiny secret words</p></body></html>`;
const otherHtml = '<p>Completely different words now.</p><p style="display:none">and a new hidden line</p>';

const newsletter = (blobId: string | undefined, id = 'H1') => ({
  id,
  from: [{ email: 'news@example.org' }],
  subject: 'Weekly',
  htmlBody: [{ partId: '2', type: 'text/html', ...(blobId === undefined ? {} : { blobId }) }],
});

/** A listing's options with a fetch that serves `bodies` by id and records what it was asked for. */
function listing(bodies: Record<string, string>, cache: BoundedLru<string, PreviewFacts>, scope = 'account-1') {
  const asked: string[][] = [];
  const options: AssessOptions = {
    authservId: ours,
    view: 'listing',
    previews: { cache, scope },
    fetchHtml: async (ids) => {
      asked.push(ids);
      return new Map(ids.flatMap((id) => (bodies[id] ? [[id, { html: bodies[id], isTruncated: false }]] : [])));
    },
  };
  return { asked, options };
}

describe('BoundedLru', () => {
  it('never holds more than its bound, and drops the least recently used first', () => {
    const lru = new BoundedLru<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) lru.set(key, i);
    expect(lru.get('a')).toBe(0); // a is now the most recent: b is the oldest
    lru.set('d', 3);
    expect(lru.size).toBe(3);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.get('d')]).toEqual([0, 2, 3]);
    for (let i = 0; i < 100; i++) lru.set(`k${i}`, i);
    expect(lru.size).toBe(3);
    expect([lru.get('k97'), lru.get('k98'), lru.get('k99'), lru.get('a')]).toEqual([97, 98, 99, undefined]);
  });

  it('moves an entry only when it is used from the older half, and never drops one used every maxEntries / 2 additions', () => {
    const lru = new BoundedLru<string, number>(4);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) lru.set(key, i);
    expect([lru.get('d'), lru.get('c')]).toEqual([3, 2]); // young: left where they are
    lru.set('e', 4); // drops a
    expect(lru.get('b')).toBe(1); // three additions old: moved to the young end
    lru.set('f', 5); // drops c, now the oldest: it was not moved when used young
    expect(lru.get('c')).toBeUndefined();
    expect([lru.get('b'), lru.get('d'), lru.get('e'), lru.get('f')]).toEqual([1, 3, 4, 5]);

    const hot = new BoundedLru<string, number>(10);
    hot.set('hot', -1);
    for (let i = 0; i < 1_000; i++) {
      hot.set(`k${i}`, i);
      if (i % 5 === 4) expect(hot.get('hot'), `after ${i + 1} additions`).toBe(-1);
    }
    expect(hot.size).toBe(10);
  });

  it('replacing a key keeps one entry with the new value', () => {
    const lru = new BoundedLru<string, number>(2);
    lru.set('a', 1);
    lru.set('a', 2);
    lru.set('b', 3);
    expect(lru.size).toBe(2);
    expect(lru.get('a')).toBe(2);
  });
});

describe('listing previews kept between calls', () => {
  it('reads the HTML of a message once: a second listing of the same bytes fetches and analyses nothing, and says the same', async () => {
    const cache = new BoundedLru<string, PreviewFacts>(10);
    const { asked, options } = listing({ H1: hiddenHtml }, cache);
    const first = await assessMail([newsletter('B1')], options);
    expect(first.H1?.preview).toBe('Visible greeting for the reader.');
    expect(first.H1?.hidden?.techniques).toEqual(expect.arrayContaining(['display:none', 'font-size:0']));
    const second = await assessMail([newsletter('B1')], options);
    expect(asked).toEqual([['H1']]);
    expect(second).toEqual(first);
  });

  it("a result's entry is its own: changing one call's result does not change the next call's", async () => {
    const cache = new BoundedLru<string, PreviewFacts>(10);
    const { options } = listing({ H1: hiddenHtml }, cache);
    const first = await assessMail([newsletter('B1')], options);
    first.H1?.hidden?.techniques.push('title');
    if (first.H1) first.H1.preview = 'changed';
    const second = await assessMail([newsletter('B1')], options);
    expect(second.H1?.preview).toBe('Visible greeting for the reader.');
    expect(second.H1?.hidden?.techniques).not.toContain('title');
  });

  it('reads a message again when its HTML is other bytes (another blob under the same id)', async () => {
    const cache = new BoundedLru<string, PreviewFacts>(10);
    const bodies: Record<string, string> = { H1: hiddenHtml };
    const { asked, options } = listing(bodies, cache);
    await assessMail([newsletter('B1')], options);
    bodies.H1 = otherHtml;
    const changed = await assessMail([newsletter('B2')], options);
    expect(asked).toEqual([['H1'], ['H1']]);
    expect(changed.H1?.preview).toBe('Completely different words now.');
    expect(changed.H1?.hidden?.chars).toBe('andanewhiddenline'.length);
  });

  it('reads every time a message whose HTML part names no blob, and keeps nothing of it', async () => {
    const cache = new BoundedLru<string, PreviewFacts>(10);
    const { asked, options } = listing({ H1: hiddenHtml }, cache);
    await assessMail([newsletter(undefined)], options);
    await assessMail([newsletter(undefined)], options);
    expect(asked).toEqual([['H1'], ['H1']]);
    expect(cache.size).toBe(0);
  });

  it("keeps one account's previews from another's: the same id and blob under another scope are read again", async () => {
    const cache = new BoundedLru<string, PreviewFacts>(10);
    const a = listing({ H1: hiddenHtml }, cache, 'account-1');
    const b = listing({ H1: otherHtml }, cache, 'account-2');
    await assessMail([newsletter('B1')], a.options);
    const other = await assessMail([newsletter('B1')], b.options);
    expect(b.asked).toEqual([['H1']]);
    expect(other.H1?.preview).toBe('Completely different words now.');
  });

  it('fetches only the messages it has not read, and stays within its bound', async () => {
    const cache = new BoundedLru<string, PreviewFacts>(2);
    const { asked, options } = listing({ H1: hiddenHtml, H2: otherHtml, H3: hiddenHtml }, cache);
    await assessMail([newsletter('B1', 'H1')], options);
    await assessMail([newsletter('B1', 'H1'), newsletter('B2', 'H2'), newsletter('B3', 'H3')], options);
    expect(asked).toEqual([['H1'], ['H2', 'H3']]);
    expect(cache.size).toBe(2);
  });

  it('keys on the account, the message and every HTML blob; not on a part that is not HTML', () => {
    const mixed = {
      id: 'M1',
      htmlBody: [
        { partId: '1', type: 'text/plain', blobId: 'P' },
        { partId: '2', type: 'text/html', blobId: 'B1' },
      ],
    };
    expect(previewFactsKey('s', mixed)).toBe(JSON.stringify(['s', 'M1', ['B1']]));
    expect(previewFactsKey('s', { ...mixed, htmlBody: [{ type: 'text/html', blobId: '' }] })).toBeUndefined();
    expect(previewFactsKey('s', { id: 'M1' })).toBeUndefined();
  });
});
