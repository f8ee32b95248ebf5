import { nodeHttpFetch } from './node-http-fetch.js';
import { RedirectRefused } from './origin-rule.js';
import { EventStreamFailure, type EventStream, type StreamEvent } from './event-stream.js';
import type { FetchFunction } from './http-types.js';

export interface EventStreamOptions {
  headers: Record<string, string>;
  /** Deadline for the response head. */
  connectTimeoutMs: number;
  /** Longest silence (no byte at all: event, ping or comment) before the stream counts as dead. */
  idleTimeoutMs: number;
  maxEventBytes: number;
  /** All bytes over the stream's life, so a chatty server cannot grow this process without end. */
  maxTotalBytes: number;
  signal: AbortSignal;
  fetch?: FetchFunction;
}

/** A text/event-stream under a head deadline, an idle deadline, per-event and total byte caps; GET only. */
export async function openEventStream(url: string, options: EventStreamOptions): Promise<EventStream> {
  const controller = new AbortController();
  const onCancel = (): void => controller.abort(options.signal.reason);
  if (options.signal.aborted) throw new EventStreamFailure('cancelled', 'cancelled');
  options.signal.addEventListener('abort', onCancel, { once: true });
  const close = (): void => {
    options.signal.removeEventListener('abort', onCancel);
    controller.abort(new Error('closed'));
  };
  let connectTimedOut = false;
  const connectTimer = setTimeout(() => {
    connectTimedOut = true;
    controller.abort(new Error('connect deadline'));
  }, options.connectTimeoutMs);
  let response: Response;
  try {
    // The same transport as every other request (send-http.ts): no undici start-up for a wait.
    response = await (options.fetch ?? nodeHttpFetch)(url, {
      method: 'GET',
      headers: { ...options.headers, accept: 'text/event-stream' },
      signal: controller.signal,
    });
  } catch (error) {
    close();
    if (options.signal.aborted) throw new EventStreamFailure('cancelled', 'cancelled');
    if (connectTimedOut)
      throw new EventStreamFailure('connect_timeout', `no answer within ${options.connectTimeoutMs} ms`);
    if (error instanceof RedirectRefused) throw new EventStreamFailure('redirect_refused', error.message);
    throw new EventStreamFailure('network', error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(connectTimer);
  }
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    close();
    throw new EventStreamFailure('status', `HTTP ${response.status}`, response.status);
  }
  if (!(response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')) {
    await response.body.cancel().catch(() => undefined);
    close();
    throw new EventStreamFailure(
      'not_event_stream',
      `content-type ${response.headers.get('content-type') ?? 'missing'}`,
    );
  }
  const reader = response.body.getReader();
  const parser = new EventParser(options.maxEventBytes);
  let total = 0;

  const readChunk = async (): Promise<Uint8Array | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new EventStreamFailure('idle', `nothing received for ${options.idleTimeoutMs} ms`)),
        options.idleTimeoutMs,
      );
    });
    try {
      const chunk = await Promise.race([reader.read(), silence]);
      return chunk.done ? undefined : chunk.value;
    } catch (error) {
      // The silence's own failure wins the race when it comes first.
      if (error instanceof EventStreamFailure) throw error;
      if (options.signal.aborted) throw new EventStreamFailure('cancelled', 'cancelled');
      throw new EventStreamFailure('network', error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async next() {
      try {
        for (;;) {
          const ready = parser.take();
          if (ready) return ready;
          const chunk = await readChunk();
          if (!chunk) throw new EventStreamFailure('ended', 'the server ended the stream');
          total += chunk.byteLength;
          if (total > options.maxTotalBytes)
            throw new EventStreamFailure('total_too_large', `more than ${options.maxTotalBytes} bytes in all`);
          parser.push(chunk);
        }
      } catch (error) {
        close();
        throw error;
      }
    },
    close,
  };
}

/** Incremental SSE framing: lines end in LF, CRLF or CR; a blank line dispatches; ":" lines are comments. */
class EventParser {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private eventType = '';
  private data: string[] = [];
  private eventBytes = 0;
  private readonly ready: StreamEvent[] = [];

  constructor(private readonly maxEventBytes: number) {}

  push(chunk: Uint8Array): void {
    this.eventBytes += chunk.byteLength;
    this.pending += this.decoder.decode(chunk, { stream: true });
    for (let match = /\r\n|\n|\r/.exec(this.pending); match; match = /\r\n|\n|\r/.exec(this.pending)) {
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === this.pending.length - 1) break;
      const line = this.pending.slice(0, match.index);
      this.pending = this.pending.slice(match.index + match[0].length);
      this.line(line);
    }
    if (this.eventBytes > this.maxEventBytes)
      throw new EventStreamFailure('event_too_large', `one event passed ${this.maxEventBytes} bytes`);
  }

  take(): StreamEvent | undefined {
    return this.ready.shift();
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.ready.push({ event: this.eventType || 'message', data: this.data.join('\n') });
      this.eventType = '';
      this.data = [];
      this.eventBytes = this.pending.length;
      return;
    }
    // A comment (":" first) names the empty field, which no branch below takes.
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.data.push(value);
  }
}
