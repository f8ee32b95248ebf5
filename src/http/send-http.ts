import { MailboxError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { cancelledError, failedBeforeSending, networkError, timeoutError, tooLargeError } from './http-errors.js';
import type { FetchFunction, HttpResponse, RetryRule } from './http-types.js';
import { parseJsonBytes } from './parse-json-bytes.js';
import { BodyTooLarge, readBoundedBody, type BodyTarget } from './read-bounded-body.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { RedirectRefused, redirectRefusedError } from './origin-rule.js';

export interface SendOptions {
  /** For messages ("JMAP request", "POST /api/v1/session"). */
  what: string;
  retry: RetryRule;
  /** One attempt's deadline: connect, headers and the whole body. */
  timeoutMs: number;
  /** All attempts and waits together; default three attempts' worth. */
  budgetMs?: number;
  /** Time that must be left after a backoff for a resend; default `timeoutMs`. */
  resendNeedsMs?: number;
  timeoutError?: (what: string, url: string, mayHaveActed: boolean, cause: unknown) => MailboxError;
  /** Byte cap of a 2xx body; error bodies are read up to `errorBodyBytes`. */
  maxBytes: number;
  /** Where a download writes its 2xx body. */
  target?: BodyTarget;
  /** Resends after the first attempt (default 2). */
  retries?: number;
  /** First backoff step; doubles each resend, with jitter. */
  retryBaseMs?: number;
  /** A longer Retry-After fails at once. */
  retryAfterCapMs?: number;
  signal?: AbortSignal;
  fetch?: FetchFunction;
  log?: Logger;
}

const errorBodyBytes = 64 * 1024;
const retryableByAnyRule = (status: number): boolean => status === 429 || status === 503;
const retryableIfIdempotent = (status: number): boolean => status === 408 || status >= 500;

/**
 * Sends one request under the project's single rule set: a referenced timer per attempt (an AbortSignal.timeout made
 * in a helper could be collected and never fire), a capped body, one budget, jittered backoff, Retry-After up to a cap,
 * resends only where the RetryRule allows. Returns any final status; throws when there is no usable answer.
 */
export async function sendHttp(url: string, init: RequestInit, options: SendOptions): Promise<HttpResponse> {
  const log = options.log ?? silentLogger;
  const retries = options.retries ?? 2;
  const budgetEnds = Date.now() + (options.budgetMs ?? 3 * options.timeoutMs);
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw cancelledError(options.what, options.signal.reason);
    const attemptMs = Math.max(1, Math.min(options.timeoutMs, budgetEnds - Date.now()));
    // What to give back when no resend fits: the answer refused for a resend, or the failure.
    let last: HttpResponse | MailboxError;
    let waitMs: number | undefined;
    try {
      const sentAt = Date.now();
      const response = await attemptOnce(url, init, options, attemptMs);
      log.debug(
        `${init.method ?? 'GET'} ${url} → HTTP ${response.status}, ${response.size} bytes in ${Date.now() - sentAt} ms${options.what.includes(url) ? '' : ` (${options.what})`}`,
      );
      const resend =
        retryableByAnyRule(response.status) ||
        (options.retry === 'idempotent' && retryableIfIdempotent(response.status));
      if (!resend || attempt >= retries) return response;
      const asked = parseRetryAfter(response.headers.get('retry-after'));
      const cap = options.retryAfterCapMs ?? 10_000;
      if (asked !== undefined && (asked > cap || Date.now() + asked > budgetEnds)) return response;
      waitMs = asked;
      last = response;
    } catch (error) {
      if (!(error instanceof AttemptFailure)) throw error;
      const resend =
        error.kind === 'refused' ||
        (options.retry === 'idempotent' && (error.kind === 'timeout' || error.kind === 'network'));
      if (!resend || attempt >= retries) throw error.mailboxError;
      last = error.mailboxError;
    }
    const backoff = (options.retryBaseMs ?? 250) * 2 ** attempt * (0.5 + Math.random() / 2);
    const wait = Math.max(waitMs ?? 0, backoff);
    // Another attempt must fit in the budget (by default with its full deadline), else stop with what we know.
    if (Date.now() + wait + (options.resendNeedsMs ?? options.timeoutMs) > budgetEnds) {
      if (last instanceof MailboxError) throw last;
      return last;
    }
    const reason = last instanceof MailboxError ? last.message : `HTTP ${last.status}`;
    log.debug(`${options.what} failed (${reason}); resend ${attempt + 1}/${retries} in ${Math.round(wait)} ms`);
    await abortableDelay(wait, options.signal, options.what);
  }
}

type FailureKind = 'timeout' | 'refused' | 'network' | 'too_large' | 'cancelled' | 'redirect';

class AttemptFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly mailboxError: MailboxError,
  ) {
    super(mailboxError.message);
  }
}

async function attemptOnce(
  url: string,
  init: RequestInit,
  options: SendOptions,
  attemptMs: number,
): Promise<HttpResponse> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`deadline of ${attemptMs} ms passed`));
  }, attemptMs);
  const onCancel = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCancel, { once: true });
  const mayHaveActed = options.retry === 'once' && (init.method ?? 'GET') !== 'GET';
  try {
    const response = await (options.fetch ?? nodeHttpFetch)(url, {
      ...init,
      redirect: init.redirect ?? 'follow',
      signal: controller.signal,
    });
    const ok = response.status >= 200 && response.status < 300;
    const limit = ok ? options.maxBytes : Math.min(options.maxBytes, errorBodyBytes);
    const { body, size } = await readBoundedBody(
      response,
      limit,
      ok && options.target ? options.target : { kind: 'memory' },
    );
    return {
      status: response.status,
      headers: response.headers,
      url: response.url || url,
      body,
      size,
      text: () => body.toString('utf8'),
      json: () => parseJsonBytes(body),
    };
  } catch (error) {
    if (error instanceof BodyTooLarge)
      throw new AttemptFailure('too_large', tooLargeError(options.what, url, error.limitBytes));
    // The same request would meet the same redirect: never resent.
    if (error instanceof RedirectRefused)
      throw new AttemptFailure('redirect', redirectRefusedError(options.what, error));
    if (options.signal?.aborted)
      throw new AttemptFailure('cancelled', cancelledError(options.what, options.signal.reason));
    if (timedOut) {
      const failure =
        options.timeoutError?.(options.what, url, mayHaveActed, error) ??
        timeoutError(options.what, url, attemptMs, mayHaveActed, error);
      throw new AttemptFailure('timeout', failure);
    }
    if (failedBeforeSending(error)) throw new AttemptFailure('refused', networkError(options.what, url, error, false));
    throw new AttemptFailure('network', networkError(options.what, url, error, mayHaveActed));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function abortableDelay(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError(what, signal.reason));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelledError(what, signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
