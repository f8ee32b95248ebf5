import { MailboxError } from '../errors.js';
import { problemDetailsSchema } from './jmap-types.js';

/** Maps a failed fetch (network, timeout, cancel) to a MailboxError naming the host. */
export function networkError(error: unknown, what: string, url: string, signal: AbortSignal | undefined, timeoutMs: number): MailboxError {
  if (signal?.aborted) {
    return new MailboxError({ code: 'cancelled', message: `${what} was cancelled.`, hint: 'Nothing was sent after the cancel; run it again when ready.', cause: error });
  }
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new MailboxError({
      code: 'timeout',
      message: `${what} got no answer from ${originOf(url)} within ${timeoutMs} ms.`,
      hint: 'Check the network, or raise --timeout-ms / AGENT_MAILBOX_TIMEOUT_MS. A send that timed out may still have gone out: check Sent before resending.',
      cause: error,
    });
  }
  const detail = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
  return new MailboxError({
    code: 'network',
    message: `${what} could not reach ${originOf(url)}: ${detail}.`,
    hint: 'Check the network and the JMAP host (--api-url / AGENT_MAILBOX_API_URL), then retry.',
    cause: error,
  });
}

/** Maps a non-2xx JMAP HTTP answer (RFC 8620 §3.6.1 problem details when present) to a MailboxError. */
export async function httpError(response: Response, what: string): Promise<MailboxError> {
  const text = await response.text().catch(() => '');
  let problem: { type: string; detail?: string | undefined; limit?: string | undefined } | undefined;
  try {
    const parsed = problemDetailsSchema.safeParse(JSON.parse(text));
    if (parsed.success) problem = parsed.data;
  } catch {
    // Not JSON: the status and a snippet of the body still say enough.
  }
  const status = response.status;
  const said = problem ? `${problem.type}${problem.detail ? `: ${problem.detail}` : ''}${problem.limit ? ` (limit ${problem.limit})` : ''}` : text.slice(0, 200);
  if (status === 401 || status === 403) {
    return new MailboxError({
      code: 'auth_rejected',
      status,
      message: `${what} was refused by the JMAP host (HTTP ${status}) even with a fresh capability${said ? `: ${said}` : ''}.`,
      hint: 'Check that credentials.json belongs to this service (--api-url), or log in again with register --api-key.',
    });
  }
  if (status === 429) {
    return new MailboxError({ code: 'rate_limited', status, message: `${what} was rate-limited (HTTP 429).`, hint: 'Wait a minute before retrying.' });
  }
  if (status >= 500) {
    return new MailboxError({ code: 'server_error', status, message: `${what} failed on the server (HTTP ${status})${said ? `: ${said}` : ''}.`, hint: 'Retry in a minute; if it persists the service is down.' });
  }
  const unknownCapability = problem?.type.endsWith('unknownCapability');
  return new MailboxError({
    code: 'jmap_request_error',
    status,
    message: `${what} was rejected (HTTP ${status})${said ? `: ${said}` : ''}.`,
    hint: unknownCapability
      ? 'Remove the capability the server does not know from `using` (or send a bare methodCalls array and let the client choose).'
      : problem?.type.endsWith('limit')
        ? 'The request exceeds a server limit: fewer calls or objects per request, or smaller data.'
        : 'Check the JSON shape: {"using": [...], "methodCalls": [["Method/name", {...}, "c1"]]} (help topic "jmap").',
    details: problem ? { problem } : undefined,
  });
}

/** Scheme and host of a URL, for messages (never the path, which may carry ids). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
