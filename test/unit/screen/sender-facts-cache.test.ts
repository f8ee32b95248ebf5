import { describe, expect, it } from 'vitest';
import { SenderFactsCache, senderFactsCacheFor } from '../../../src/screen/receive-screen.js';
import type { SenderFacts } from '../../../src/trust/sender-authentication.js';

const facts = (email: string): SenderFacts => ({ from: [{ email }], authenticationResults: [] });

describe('SenderFactsCache', () => {
  it('keeps the first facts of a message and forgets the oldest entries beyond its bound', () => {
    const cache = new SenderFactsCache(2);
    cache.set('M1', facts('a@x.test'));
    cache.set('M1', facts('changed@x.test'));
    cache.set('M2', facts('b@x.test'));
    expect(cache.get('M1')).toEqual(facts('a@x.test'));
    cache.set('M3', facts('c@x.test'));
    expect([cache.get('M1'), cache.get('M2'), cache.get('M3')]).toEqual([
      undefined,
      facts('b@x.test'),
      facts('c@x.test'),
    ]);
    cache.set('M2', facts('again@x.test'));
    expect(cache.get('M3')).toEqual(facts('c@x.test'));
  });

  it('holds twenty thousand messages by default', () => {
    const cache = new SenderFactsCache();
    for (let i = 0; i <= 20_000; i++) cache.set(`M${i}`, facts(`${i}@x.test`));
    expect(cache.get('M0')).toBeUndefined();
    expect(cache.get('M1')).toEqual(facts('1@x.test'));
    expect(cache.get('M20000')).toEqual(facts('20000@x.test'));
  });

  it('is one cache per account for the life of the process', () => {
    const account = {};
    senderFactsCacheFor(account).set('M1', facts('a@x.test'));
    expect(senderFactsCacheFor(account).get('M1')).toEqual(facts('a@x.test'));
    expect(senderFactsCacheFor({}).get('M1')).toBeUndefined();
  });
});
