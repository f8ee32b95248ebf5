import { httpRequest } from '../http/http-request.js';
import type { HttpResponse } from '../http/http-types.js';
import type { EventStream } from '../http/event-stream.js';
import { openEventStream, type EventStreamOptions } from '../http/open-event-stream.js';
import { sendHttp, type SendOptions } from '../http/send-http.js';
import type { Deadline } from './deadline.js';

/**
 * The one module that sends to the service (ESLint's no-restricted-imports keeps the HTTP senders out
 * of every other file), each request under the call's deadline: attempts, backoffs and Retry-After
 * waits fit in what is left, and one that runs out says how long the call waited in all.
 */

export type ServiceSendOptions = Pick<
  SendOptions,
  'what' | 'retry' | 'maxBytes' | 'target' | 'retries' | 'signal' | 'fetch' | 'log'
> & { deadline: Deadline };

/** A resend is made only while this share of the timeout is left: less would be cut off anyway. */
const resendShare = 0.25;

function underDeadline(deadline: Deadline, what: string, url: string) {
  const remaining = deadline.remainingMs();
  if (remaining <= 0) throw deadline.expiredError(what, url, false);
  return {
    timeoutMs: remaining,
    budgetMs: remaining,
    resendNeedsMs: deadline.timeoutMs * resendShare,
    timeoutError: deadline.expiredError.bind(deadline),
  };
}

/** Sends one request to the JMAP host; returns the final answer whatever its status. */
export function sendToService(url: string, init: RequestInit, options: ServiceSendOptions): Promise<HttpResponse> {
  const { deadline, ...rest } = options;
  return sendHttp(url, init, { ...rest, ...underDeadline(deadline, options.what, url) });
}

/** A request whose answer outside 2xx becomes the service's own error (§7.2): the auth host, and session discovery at sign-up. */
export function requestService(
  url: string,
  init: RequestInit,
  options: Omit<ServiceSendOptions, 'what' | 'target' | 'maxBytes'> & { maxBytes?: number },
): Promise<HttpResponse> {
  const { deadline, ...rest } = options;
  return httpRequest(url, init, { ...rest, ...underDeadline(deadline, `${init.method ?? 'GET'} ${url}`, url) });
}

/** Opens the JMAP push stream (RFC 8620 §7.3); its response head must come within the call's deadline. */
export function openServiceStream(
  url: string,
  options: Omit<EventStreamOptions, 'connectTimeoutMs'> & { deadline: Deadline },
): Promise<EventStream> {
  const { deadline, ...rest } = options;
  return openEventStream(url, { ...rest, connectTimeoutMs: Math.max(1, deadline.remainingMs()) });
}
