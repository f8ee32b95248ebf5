import type { HttpResponse } from './http-types.js';
import { sendHttp, type SendOptions } from './send-http.js';
import { serviceError } from './service-error.js';

/** The auth host answers small JSON bodies and tokens in headers; nothing it sends needs more. */
const authBodyLimitBytes = 64 * 1024;

type HttpOptions = Omit<SendOptions, 'what' | 'target' | 'maxBytes'> & { maxBytes?: number };

/** A request to the auth host (or a small JSON GET) through the one HTTP layer; non-2xx answers become MailboxErrors. */
export async function httpRequest(url: string, init: RequestInit, options: HttpOptions): Promise<HttpResponse> {
  const method = init.method ?? 'GET';
  const what = `${method} ${safePath(url)}`;
  const response = await sendHttp(url, init, { ...options, what, maxBytes: options.maxBytes ?? authBodyLimitBytes });
  if (response.status >= 200 && response.status < 300) return response;
  throw serviceError(response.status, response.text(), what);
}

/** Host and path only: query strings may carry tokens on some hosts. */
function safePath(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
