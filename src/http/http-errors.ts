import { MailboxError, settingRef } from '../errors.js';

/** Scheme and host of a URL, for messages (never the path or query, which may carry ids or tokens). */
export function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : 'the configured host';
}

export function timeoutError(
  what: string,
  url: string,
  timeoutMs: number,
  mayHaveActed: boolean,
  cause?: unknown,
): MailboxError {
  return new MailboxError({
    code: 'timeout',
    message: `${what}: no complete answer from ${originOf(url)} within ${timeoutMs} ms.`,
    hint: timeoutHint(mayHaveActed),
    cause,
  });
}

/** What to do after a request ran out of time: never a blind resend of one that may have acted. */
export function timeoutHint(mayHaveActed: boolean): string {
  return mayHaveActed
    ? `The request may still have taken effect, so it was not resent. Check its result (for a send: look in Sent) before trying again; raise ${settingRef('timeoutMs')} if the host is just slow.`
    : `Check the network and that the host is up, or raise ${settingRef('timeoutMs')}, then try again.`;
}

export function networkError(what: string, url: string, cause: unknown, mayHaveActed: boolean): MailboxError {
  const detail = errorDetail(cause);
  return new MailboxError({
    code: 'network',
    message: `${what}: the connection to ${originOf(url)} failed (${detail}).`,
    hint: mayHaveActed
      ? 'The request may have reached the server before the connection broke, so it was not resent. Check its result before trying again.'
      : 'Check the network connection, then try again. If it keeps failing, the operator checks the service URLs this client was started with (AGENT_MAILBOX_AUTH_URL / AGENT_MAILBOX_API_URL, or --auth-url / --api-url on its command line or in the server config of the host); a tool call cannot change them.',
    cause,
  });
}

export function cancelledError(what: string, cause?: unknown): MailboxError {
  return new MailboxError({
    code: 'cancelled',
    message: `${what} was cancelled before it finished.`,
    hint: 'Run it again when ready.',
    cause,
  });
}

export function tooLargeError(what: string, url: string, limitBytes: number): MailboxError {
  return new MailboxError({
    code: 'response_too_large',
    message: `${what}: the answer from ${originOf(url)} exceeded the limit of ${limitBytes} bytes, so it was cut off and not used.`,
    hint: `Check that ${settingRef('authUrl')} and ${settingRef('apiUrl')} point at the Agent Mailbox Service; for JMAP, ask for fewer or smaller objects per request (limit, properties, maxBodyValueBytes).`,
    details: { host: originOf(url), limitBytes },
  });
}

/** The most specific message of a fetch failure (undici wraps the socket error as `cause`). */
export function errorDetail(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const inner = error.cause instanceof Error ? error.cause : undefined;
  const code = (inner as NodeJS.ErrnoException | undefined)?.code ?? (error as NodeJS.ErrnoException).code;
  const message = inner?.message ?? error.message;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

const neverSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** Failures where the request never left this machine: resending cannot do anything twice. */
export function failedBeforeSending(error: unknown): boolean {
  const inner = error instanceof Error && error.cause ? error.cause : error;
  return neverSentCodes.has((inner as NodeJS.ErrnoException | undefined)?.code ?? '');
}
