/**
 * A map bounded to `maxEntries`, the least recently used dropped first, near enough: an entry moves to the young end
 * when used from the older half, so one used once in every `maxEntries / 2` additions stays. Moving it on every use
 * rebuilt the map's table every few calls, most of what a session left in V8's old generation.
 */
export class BoundedLru<K, V> {
  private readonly entries = new Map<K, { value: V; added: number }>();
  private added = 0;

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry && this.added - entry.added >= this.maxEntries / 2) this.set(key, entry.value);
    return entry?.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, added: (this.added += 1) });
    // One entry was added, so one at most is over the bound: the oldest, first in the map's order.
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }
}

/**
 * A pure function of a short text, remembered by that text: a long session meets the same domains, list entries
 * and session URLs on every call. Facts, never verdicts; bounded in count (the least recently used goes first) and
 * in length, since mail from strangers names texts without end (no domain, address or origin is longer).
 */
export function rememberedByText<T>(work: (text: string) => T): (text: string) => T {
  const known = new BoundedLru<string, { answer: T }>(4_096);
  return (text) => {
    if (text.length > 320) return work(text);
    const seen = known.get(text);
    if (seen) return seen.answer;
    const answer = work(text);
    known.set(text, { answer });
    return answer;
  };
}
