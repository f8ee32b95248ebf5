import { MailboxError, settingRef } from '../errors.js';
import { originOf, timeoutHint } from '../http/http-errors.js';

export interface DeadlineOptions {
  /** The configured timeout (--timeout-ms): all the time one call may spend on the service. */
  timeoutMs: number;
  /** The front door's wall-clock budget for the call (an MCP host cuts tool calls), when it has one. */
  budgetMs?: number | undefined;
  /** Milliseconds since the epoch; tests move it instead of waiting. */
  now?: () => number;
}

/**
 * The clock of one call, shared by every view of its deadline (withoutBudget). Pauses are the waits
 * the caller asked for: the finished ones' total, when the outermost running one began, how many run.
 */
interface CallClock {
  readonly now: () => number;
  readonly startedAt: number;
  pausedMs: number;
  pausedSince: number;
  pauses: number;
}

/**
 * When one call to the service must be over: every attempt, retry, session fetch and renewal shares the
 * timeout, nothing outlives the door's budget. Waits the caller asked for (wait_for_mail, a proof of
 * work, a lock, a person's yes) run off the timeout's clock, not the budget's. One per call.
 */
export class Deadline {
  private constructor(
    private readonly clock: CallClock,
    readonly timeoutMs: number,
    readonly budgetMs: number | undefined,
  ) {}

  static start(options: DeadlineOptions): Deadline {
    const now = options.now ?? Date.now;
    return new Deadline(
      { now, startedAt: now(), pausedMs: 0, pausedSince: 0, pauses: 0 },
      options.timeoutMs,
      options.budgetMs,
    );
  }

  elapsedMs(): number {
    return this.clock.now() - this.clock.startedAt;
  }

  /** Time the call has spent on the timeout's clock (waits the caller asked for left out). */
  spentMs(): number {
    const { now, pausedMs, pausedSince, pauses } = this.clock;
    return this.elapsedMs() - pausedMs - (pauses > 0 ? now() - pausedSince : 0);
  }

  budgetLeftMs(): number | undefined {
    return this.budgetMs === undefined ? undefined : Math.max(0, this.budgetMs - this.elapsedMs());
  }

  /** What is left for the service: the earlier of the timeout and the budget, never below zero. */
  remainingMs(): number {
    const timeoutLeft = this.timeoutMs - this.spentMs();
    return Math.max(0, Math.min(timeoutLeft, this.budgetLeftMs() ?? Number.POSITIVE_INFINITY));
  }

  /** Runs a wait the caller asked for off the timeout's clock; the budget still runs. */
  async offTheClock<T>(wait: () => Promise<T>): Promise<T> {
    const clock = this.clock;
    if (clock.pauses++ === 0) clock.pausedSince = clock.now();
    try {
      return await wait();
    } finally {
      if (--clock.pauses === 0) clock.pausedMs += clock.now() - clock.pausedSince;
    }
  }

  /** The same timeout without the budget, for work that outlives the call on purpose (a registration still solving). */
  withoutBudget(): Deadline {
    return new Deadline(this.clock, this.timeoutMs, undefined);
  }

  /** A new deadline with the same limits, starting now: each run of a long-lived command (watch run) is a call. */
  restarted(): Deadline {
    return Deadline.start({ timeoutMs: this.timeoutMs, budgetMs: this.budgetMs, now: this.clock.now });
  }

  /** The error of a request that got no complete answer in time: which host, which limit, how long in all. */
  expiredError(what: string, url: string, mayHaveActed: boolean, cause?: unknown): MailboxError {
    const host = originOf(url);
    const budgetEnded =
      this.budgetMs !== undefined && this.budgetMs - this.elapsedMs() <= this.timeoutMs - this.spentMs();
    if (budgetEnded) {
      const waited = this.elapsedMs();
      return new MailboxError({
        code: 'timeout',
        message: `${what}: no complete answer from ${host} within ${this.budgetMs} ms, the time one tool call may take here (the MCP server's --tool-deadline-ms); the call waited ${waited} ms in all.`,
        hint: mayHaveActed
          ? 'The request may still have taken effect, so it was not resent: check its result (for a send: look in Sent) before calling again.'
          : 'Call again: the host cuts a tool call at about a minute, and the service did not answer in that time.',
        details: { host, budgetMs: this.budgetMs, waitedMs: waited },
        cause,
      });
    }
    const waited = this.spentMs();
    return new MailboxError({
      code: 'timeout',
      message: `${what}: no complete answer from ${host} within ${this.timeoutMs} ms, the time limit of the whole call (${settingRef('timeoutMs')}); the call waited ${waited} ms for the service in all.`,
      hint: timeoutHint(mayHaveActed),
      details: { host, timeoutMs: this.timeoutMs, waitedMs: waited },
      cause,
    });
  }
}
