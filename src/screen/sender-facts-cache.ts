import type { SenderFacts } from '../trust/sender-authentication.js';

/**
 * Sender facts by email id, per account, kept for the life of the process (an MCP server serves
 * many calls). A message's headers never change (RFC 8621 §4: Email objects are immutable but for
 * keywords and mailboxes), so an entry never goes stale; the bound only caps memory.
 */
export class SenderFactsCache {
  private readonly entries = new Map<string, SenderFacts>();

  constructor(private readonly maxEntries = 20_000) {}

  get(emailId: string): SenderFacts | undefined {
    return this.entries.get(emailId);
  }

  set(emailId: string, facts: SenderFacts): void {
    if (this.entries.has(emailId)) return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest first: Map keeps insertion order.
      const oldest = this.entries.keys().next().value;
      // Stryker disable next-line ConditionalExpression: the map is full here, so it has an oldest key
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(emailId, facts);
  }
}

const caches = new WeakMap<object, SenderFactsCache>();

/** The cache of one account (keyed by the account object the registry hands out). */
export function senderFactsCacheFor(account: object): SenderFactsCache {
  let cache = caches.get(account);
  if (!cache) {
    cache = new SenderFactsCache();
    caches.set(account, cache);
  }
  return cache;
}
