import { TokenBucket, type RateDecision, type RateLimit } from '../../auth/rate-limiter.js';

/** Buckets kept before idle ones are dropped; an idle bucket is full again, so dropping it forgets nothing. */
const maxBuckets = 1000;

/** One token bucket per remote address (spec §5.2: dynamic registration is rate-limited per IP). */
export class AddressRateLimiter {
  private readonly buckets = new Map<string, { bucket: TokenBucket; lastUsed: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
  ) {}

  /** Takes one token from the address's bucket. */
  take(address: string): RateDecision {
    const now = this.now();
    let entry = this.buckets.get(address);
    if (!entry) {
      if (this.buckets.size >= maxBuckets) this.dropIdle(now);
      entry = { bucket: new TokenBucket(this.limit, this.now), lastUsed: now };
      this.buckets.set(address, entry);
    }
    entry.lastUsed = now;
    return entry.bucket.take();
  }

  private dropIdle(now: number): void {
    const refillMs =
      this.limit.refillPerSecond > 0 ? (this.limit.capacity / this.limit.refillPerSecond) * 1000 : Infinity;
    for (const [address, entry] of this.buckets) if (now - entry.lastUsed >= refillMs) this.buckets.delete(address);
    // Still full of busy addresses: the oldest goes, so memory stays bounded.
    if (this.buckets.size >= maxBuckets) this.buckets.delete(this.buckets.keys().next().value ?? '');
  }
}
