import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceGate } from '../gate/service-gate.js';
import { EventStreamFailure, type EventStream, type StreamEvent } from '../http/event-stream.js';
import { cancelledError } from '../http/http-errors.js';
import { expandTemplate } from '../jmap/jmap-session.js';
import type { Logger } from '../log.js';

export interface WakeSourceOptions {
  /** The call's gate: the stream opens through it, its head within the call's deadline. */
  gate: ServiceGate;
  eventSourceUrl: string | undefined;
  signal: AbortSignal;
  log: Logger;
  now?: () => number;
  /** Poll intervals, growing to the last; the last bounds how late a delivery is noticed. */
  pollDelaysMs?: readonly number[];
  /** Seconds between the server's pings (see the idle timeout below). */
  pingSeconds?: number;
}

/** Bounds of one push stream: an event is a small StateChange; the total lets a long wait run for hours. */
const eventStreamLimits = { maxEventBytes: 64 * 1024, maxTotalBytes: 8 * 1024 * 1024 } as const;
const defaultPollDelaysMs = [250, 500, 1000] as const;

export async function openWakeSource(options: WakeSourceOptions): Promise<MailWakeSource> {
  const source = new MailWakeSource(options);
  await source.start();
  return source;
}

/** What wakes wait_for_mail: a JMAP push stream (RFC 8620 §7.3) when one works, else (or after it fails) polling. */
class MailWakeSource {
  /** How it waits right now; `push` can become `polling`, never the other way. */
  mode: 'push' | 'polling' = 'polling';
  /** Why push was not used or stopped, for the result. */
  fallbackReason: string | undefined;
  private stream: EventStream | undefined;
  /** A read left running when a wait ended at its deadline: the next wait takes it over. */
  private pendingEvent: Promise<StreamEvent | EventStreamFailure> | undefined;
  private polls = 0;
  private readonly now: () => number;

  constructor(private readonly options: WakeSourceOptions) {
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    const template = this.options.eventSourceUrl;
    if (!template) {
      this.fallbackReason = 'the server offers no push (eventSourceUrl)';
      return;
    }
    const ping = this.options.pingSeconds ?? 5;
    const url = expandTemplate(template, { types: 'Email', closeafter: 'no', ping: String(ping) });
    try {
      this.stream = await this.options.gate.openEvents(url, {
        // Two missed pings plus slack for a slow network: at most 2 s, at most one ping's worth.
        idleTimeoutMs: (2 * ping + Math.min(2, ping)) * 1000,
        ...eventStreamLimits,
      });
      this.mode = 'push';
    } catch (error) {
      if (this.options.signal.aborted) throw cancelledError('Waiting for mail', this.options.signal.reason);
      // Only the stream failed (a token that cannot be had fails the looks too, so it ends the wait).
      if (!(error instanceof EventStreamFailure)) throw error;
      this.fallBack(error);
    }
  }

  /** Resolves when it is worth checking again (an event, a poll tick) or at `untilMs`; rejects only on cancel. */
  async wait(untilMs: number): Promise<void> {
    const { signal } = this.options;
    if (signal.aborted) throw cancelledError('Waiting for mail', signal.reason);
    const remaining = Math.max(0, untilMs - this.now());
    if (!this.stream) {
      const delays = this.options.pollDelaysMs ?? defaultPollDelaysMs;
      const delay = delays[Math.min(this.polls, delays.length - 1)] ?? 1000;
      this.polls += 1;
      await raceDeadline(new Promise<never>(() => undefined), Math.min(delay, remaining), signal);
      return;
    }
    const stream = this.stream;
    for (;;) {
      this.pendingEvent ??= stream
        .next()
        .catch((error: unknown) =>
          error instanceof EventStreamFailure ? error : new EventStreamFailure('network', String(error)),
        );
      const outcome = await raceDeadline(this.pendingEvent, Math.max(0, untilMs - this.now()), signal);
      if (outcome === 'deadline') return;
      this.pendingEvent = undefined;
      if (outcome instanceof EventStreamFailure) {
        if (signal.aborted) throw cancelledError('Waiting for mail', signal.reason);
        // Check at once: a delivery may have happened while the stream was failing.
        this.fallBack(outcome);
        return;
      }
      if (outcome.event === 'state') return;
      // Pings and other events only prove the stream is alive; keep waiting.
    }
  }

  close(): void {
    this.stream?.close();
    this.stream = undefined;
  }

  private fallBack(error: EventStreamFailure): void {
    this.close();
    this.mode = 'polling';
    this.fallbackReason = `the push stream failed (${error.kind}: ${error.message})`;
    this.options.log.debug(`wait_for_mail: ${this.fallbackReason}; polling Email/changes instead`);
  }
}

/** The promise's value, or 'deadline' when `ms` pass first; rejects with a cancel error at once on abort. */
async function raceDeadline<T>(promise: Promise<T>, ms: number, signal: AbortSignal): Promise<T | 'deadline'> {
  const settled = new AbortController();
  try {
    const deadline = sleep(ms, 'deadline' as const, { signal: AbortSignal.any([signal, settled.signal]) });
    return await Promise.race([promise, deadline]);
  } catch (error) {
    if (signal.aborted) throw cancelledError('Waiting for mail', signal.reason);
    throw error;
  } finally {
    settled.abort();
  }
}
