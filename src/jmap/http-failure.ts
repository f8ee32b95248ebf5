import { z } from 'zod';
import { MailboxError, inputRef, settingRef } from '../errors.js';
import type { HttpResponse } from '../http/http-types.js';
import { redactCredentialEcho, redactDeep } from '../redact.js';
import { problemDetailsSchema } from './jmap-types.js';

/** Maps a non-2xx JMAP HTTP answer (RFC 8620 §3.6.1 problem details when present) to a MailboxError. */
export function httpError(response: HttpResponse, what: string): MailboxError {
  // Server text may echo the request, Authorization header included: redacted before it is kept.
  const text = redactCredentialEcho(response.text());
  // Not JSON: the status and a snippet of the body still say enough.
  const problem = problemDetailsSchema.safeParse(redactDeep(jsonOf(response), redactCredentialEcho)).data;
  const status = response.status;
  const refusal = oauthRefusal(response);
  if (refusal) return refusal;
  const said = problem
    ? `${problem.type}${problem.detail ? `: ${problem.detail}` : ''}${problem.limit ? ` (limit ${problem.limit})` : ''}`
    : text.slice(0, 200);
  if (status === 401 || status === 403) {
    return new MailboxError({
      code: 'auth_rejected',
      status,
      message: `${what} was refused by the JMAP host (HTTP ${status}) even with a fresh capability${said ? `: ${said}` : ''}.`,
      hint: `Check that credentials.json belongs to this service (${settingRef('apiUrl')}), or log in again with register ${inputRef('api_key')}.`,
    });
  }
  if (status === 429) {
    const after = response.headers.get('retry-after');
    return new MailboxError({
      code: 'rate_limited',
      status,
      message: `${what} was rate-limited (HTTP 429${after ? `, the server asks to wait ${after.trim()} s` : ''}); it was not processed.`,
      hint: after ? `Wait ${after.trim()} seconds, then retry.` : 'Wait a minute before retrying.',
    });
  }
  if (status >= 500) {
    return new MailboxError({
      code: 'server_error',
      status,
      message: `${what} failed on the server (HTTP ${status})${said ? `: ${said}` : ''}.`,
      hint: 'Retry in a minute; if it persists the service is down.',
    });
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

const oauthErrorBody = z.looseObject({ error: z.string(), error_description: z.string().optional() });

/**
 * The OAuth path's refusals (spec §7.1): a grant without the scope a request needs (403
 * insufficient_scope, the scope named in WWW-Authenticate, RFC 6750 §3), or an inbox the person
 * does not own (403 access_denied).
 */
function oauthRefusal(response: HttpResponse): MailboxError | undefined {
  if (response.status !== 403) return undefined;
  const body = oauthErrorBody.safeParse(jsonOf(response)).data;
  const said = body?.error_description ? `: ${redactCredentialEcho(body.error_description).slice(0, 300)}` : '';
  if (body?.error === 'insufficient_scope') {
    const scope = /scope="([^"]{1,100})"/.exec(response.headers.get('www-authenticate') ?? '')?.[1] ?? 'mail.send';
    return new MailboxError({
      code: 'insufficient_scope',
      status: 403,
      message: `The service refused this request: the connected account's grant lacks the ${scope} scope (insufficient_scope${said}). Nothing was sent.`,
      hint: `Only the operator can grant ${scope}: they run agent-mailbox connect --scope read,send for this credentials directory, and the person approves it on the consent page. Until then this inbox can only be read (and while a wake run is active for it, its tokens are read-only on purpose).`,
      details: { scope },
    });
  }
  if (body?.error === 'access_denied') {
    return new MailboxError({
      code: 'inbox_unknown',
      status: 403,
      message: `The service refused this request: the chosen inbox does not belong to the connected account (access_denied${said}).`,
      hint: 'Call list_inboxes to see the inboxes the account has now, and pick one of them.',
      next: { operation: 'list_inboxes' },
    });
  }
  return undefined;
}

function jsonOf(response: HttpResponse): unknown {
  try {
    return JSON.parse(response.text()) as unknown;
  } catch {
    return undefined;
  }
}
