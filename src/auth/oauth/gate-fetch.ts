import type { Deadline } from '../../gate/deadline.js';
import { sendToService } from '../../gate/send-to-service.js';
import type { FetchFunction, HttpResponse } from '../../http/http-types.js';
import type { Logger } from '../../log.js';

/** What every request of the OAuth client runs under: the call's deadline and cancel signal. */
export interface OAuthHttp {
  deadline: Deadline;
  signal?: AbortSignal;
  log: Logger;
  fetch?: FetchFunction;
}

/** The options oauth4webapi hands its `customFetch` (a subset of RequestInit). */
interface CustomFetchInit {
  method: string;
  headers: Record<string, string>;
  body?: unknown;
  redirect?: string;
  signal?: AbortSignal;
}

/** Token, registration and metadata answers are a few KB; anything far beyond is a broken or hostile server. */
const oauthBodyLimit = 256 * 1024;
const nullBodyStatuses = new Set([101, 204, 205, 304]);

/**
 * oauth4webapi's `customFetch`, sending through the gate's sender: the call's one deadline over
 * every attempt, a capped body, no redirects (oauth4webapi asks for `manual`), and a POST resent
 * only when the server certainly did not act on it (a refresh that took effect must never go out
 * twice: the second would present a retired refresh token). `onAnswer` sees each raw answer
 * before oauth4webapi does, so a new refresh token can be stored before any check can fail.
 */
export function gateFetch(
  http: OAuthHttp,
  onAnswer?: (response: HttpResponse) => Promise<void>,
): (url: string, init: CustomFetchInit) => Promise<Response> {
  return async (url, init) => {
    const body =
      init.body instanceof URLSearchParams
        ? init.body.toString()
        : typeof init.body === 'string'
          ? init.body
          : undefined;
    const response = await sendToService(
      url,
      { method: init.method, headers: init.headers, redirect: 'manual', ...(body !== undefined ? { body } : {}) },
      {
        deadline: http.deadline,
        what: `${init.method} ${pathOf(url)}`,
        retry: init.method === 'GET' ? 'idempotent' : 'once',
        maxBytes: oauthBodyLimit,
        log: http.log,
        ...(http.signal ? { signal: http.signal } : {}),
        ...(http.fetch ? { fetch: http.fetch } : {}),
      },
    );
    await onAnswer?.(response);
    // The HTTP layer's headers are a minimal reader (get/has/forEach), not a Headers: copied into one.
    const headers = new Headers();
    response.headers.forEach((value, name) => headers.set(name, value));
    return new Response(nullBodyStatuses.has(response.status) ? null : new Uint8Array(response.body), {
      status: response.status,
      headers,
    });
  };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
