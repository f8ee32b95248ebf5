import type { PreviewFacts } from './assess-mail.js';

/** A map bounded to `maxEntries`, least recently used dropped first (Map keeps insertion order). */
export class BoundedLru<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      // Stryker disable next-line ConditionalExpression: the map is over its bound here, so it has an oldest key
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}

/**
 * The process's listing previews: a long session lists the same mail again and again, and reading
 * its HTML was most of a listing's work. Facts about bytes, never verdicts, so a rule change drops
 * nothing. 2,000 previews of 256 characters: well under a megabyte.
 */
export const previewFactsCache = new BoundedLru<string, PreviewFacts>(2_000);
