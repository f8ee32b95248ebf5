/** Token-bucket settings: `capacity` requests at once, refilled at `refillPerSecond`. */
export interface RateLimit {
  capacity: number;
  refillPerSecond: number;
}

/** Generous: a burst of 120 challenges, then 20 per second; only a runaway loop meets it. */
export const defaultRateLimit: RateLimit = { capacity: 120, refillPerSecond: 20 };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** One per-process token bucket (the sandbox is loopback-only, so no per-client buckets). */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.tokens = limit.capacity;
    this.updatedAt = now();
  }

  /** Takes one token if there is one; otherwise says how long until there will be. */
  take(): RateDecision {
    const now = this.now();
    const elapsedSeconds = Math.max(0, now - this.updatedAt) / 1000;
    this.tokens = Math.min(this.limit.capacity, this.tokens + elapsedSeconds * this.limit.refillPerSecond);
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { allowed: true };
    }
    const waitSeconds = this.limit.refillPerSecond > 0 ? (1 - this.tokens) / this.limit.refillPerSecond : 60;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
  }
}
