import { MailboxError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { serviceError } from './service-error.js';

export type FetchFunction = typeof fetch;

export interface HttpOptions {
  /** Per-attempt timeout; every request has one (issue 3). */
  timeoutMs: number;
  signal?: AbortSignal;
  fetch?: FetchFunction;
  log?: Logger;
  /** Retries after the first attempt, for network errors, timeouts, 429 and 5xx. */
  retries?: number;
  /** First backoff step; doubles each retry, with full jitter. */
  retryBaseMs?: number;
  /** Cap for one wait, including a server's Retry-After. */
  retryMaxMs?: number;
}

/** A fully read response: the body is read under the same timeout as the headers. */
export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  text(): string;
  json(): unknown;
}

const retryableStatus = (status: number): boolean => status === 429 || status >= 500;

/** Sends a request with a timeout, retries transient failures, and throws MailboxError on non-2xx. */
export async function httpRequest(url: string, init: RequestInit, options: HttpOptions): Promise<HttpResponse> {
  const log = options.log ?? silentLogger;
  const retries = options.retries ?? 3;
  const where = `${init.method ?? 'GET'} ${safePath(url)}`;
  for (let attempt = 0; ; attempt += 1) {
    let outcome: HttpResponse | MailboxError;
    let retryAfterMs: number | undefined;
    try {
      const response = await attemptOnce(url, init, options);
      if (response.status >= 200 && response.status < 300) return response;
      outcome = serviceError(response.status, response.text(), where);
      if (!retryableStatus(response.status)) throw outcome;
      retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    } catch (error) {
      if (error instanceof MailboxError && !['network', 'timeout', 'rate_limited', 'server_error'].includes(error.code)) throw error;
      if (options.signal?.aborted) throw cancelled(options.signal.reason);
      outcome = error instanceof MailboxError ? error : networkError(where, error);
    }
    if (attempt >= retries) throw outcome;
    const base = options.retryBaseMs ?? 250;
    const cap = options.retryMaxMs ?? 30_000;
    const backoff = Math.random() * base * 2 ** attempt;
    const waitMs = Math.min(cap, Math.max(backoff, retryAfterMs ?? 0));
    log.debug(`${where} failed (${outcome.message}); retry ${attempt + 1}/${retries} in ${Math.round(waitMs)} ms`);
    await abortableDelay(waitMs, options.signal);
  }
}

async function attemptOnce(url: string, init: RequestInit, options: HttpOptions): Promise<HttpResponse> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(url, { ...init, signal });
    const body = Buffer.from(await response.arrayBuffer());
    return {
      status: response.status,
      headers: response.headers,
      body,
      text: () => body.toString('utf8'),
      json: () => JSON.parse(body.toString('utf8')) as unknown,
    };
  } catch (error) {
    if (options.signal?.aborted) throw cancelled(options.signal.reason);
    if (timeout.aborted) {
      throw new MailboxError({
        code: 'timeout',
        message: `No answer from ${safePath(url)} within ${options.timeoutMs} ms.`,
        hint: 'Check the network, or raise --timeout-ms / AGENT_MAILBOX_TIMEOUT_MS, then try again.',
        cause: error,
      });
    }
    throw error;
  }
}

function networkError(where: string, cause: unknown): MailboxError {
  const detail = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
  return new MailboxError({
    code: 'network',
    message: `Could not reach the service (${where}): ${detail}.`,
    hint: 'Check the network connection and the configured --auth-url / --api-url, then try again.',
    cause,
  });
}

function cancelled(reason: unknown): MailboxError {
  return new MailboxError({
    code: 'cancelled',
    message: 'The request was cancelled before it finished.',
    hint: 'Nothing was lost; run it again when ready.',
    cause: reason,
  });
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(signal.reason));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Host and path only: query strings may carry tokens on some hosts. */
function safePath(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}
