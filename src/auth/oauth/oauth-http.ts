import * as oauth from 'oauth4webapi';
import { MailboxError } from '../../errors.js';
import type { Deadline } from '../../gate/deadline.js';
import { sendToService } from '../../gate/send-to-service.js';
import type { FetchFunction, HttpResponse } from '../../http/http-types.js';
import type { Logger } from '../../log.js';
import { redactCredentialEcho } from '../../redact.js';

/** What every request of the OAuth client runs under: the call's deadline and cancel signal. */
export interface OAuthHttp {
  deadline: Deadline;
  signal?: AbortSignal;
  log: Logger;
  fetch?: FetchFunction;
}

/** Token, registration and metadata answers are a few KB; anything far beyond is a broken or hostile server. */
const oauthBodyLimit = 256 * 1024;
const nullBodyStatuses = new Set([101, 204, 205, 304]);

/** oauth4webapi's fetch over the gate's sender; `onAnswer` sees each raw answer first (a new refresh token is kept). */
export function gateFetch(
  http: OAuthHttp,
  onAnswer?: (response: HttpResponse) => Promise<void>,
): (url: string, init: oauth.CustomFetchOptions<string, unknown>) => Promise<Response> {
  return async (url, init) => {
    const body = init.body instanceof URLSearchParams || typeof init.body === 'string' ? String(init.body) : undefined;
    const response = await sendToService(
      url,
      { method: init.method, headers: init.headers, redirect: 'manual', body },
      {
        ...http,
        what: `${init.method} ${pathOf(url)}`,
        retry: init.method === 'GET' ? 'idempotent' : 'once',
        maxBytes: oauthBodyLimit,
      },
    );
    await onAnswer?.(response);
    // The HTTP layer's headers are a minimal reader, not a Headers.
    const headers = new Headers();
    response.headers.forEach((value, name) => headers.set(name, value));
    return new Response(nullBodyStatuses.has(response.status) ? null : new Uint8Array(response.body), {
      status: response.status,
      headers,
    });
  };
}

function pathOf(url: string): string {
  return URL.canParse(url) ? new URL(url).pathname : url;
}

/** What an OAuth exchange was, for messages ("the token endpoint", "dynamic client registration"). */
export type OAuthStep = 'discovery' | 'registration' | 'authorization' | 'code exchange' | 'renewal' | 'revocation';

/** oauth4webapi's errors as MailboxErrors: the server's words masked, the library's (whole body) never passed on. */
export function oauthFailure(error: unknown, step: OAuthStep, where: string): MailboxError {
  if (error instanceof MailboxError) return error;
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) {
    const code = clip(error.error);
    const said = error.error_description ? `: ${clip(error.error_description)}` : '';
    const status = error instanceof oauth.ResponseBodyError ? error.status : undefined;
    return new MailboxError({
      code: step === 'renewal' && error.error === 'invalid_grant' ? 'grant_revoked' : 'oauth_failed',
      ...(status !== undefined ? { status } : {}),
      message: `The ${step} was refused by ${where} (${code}${said}).`,
      hint: hintFor(step, error.error),
      details: { oauthError: code },
    });
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError)
    return new MailboxError({
      code: 'oauth_failed',
      status: error.status,
      message: `The ${step} was refused by ${where} (HTTP ${error.status}, ${clip(error.cause.map((c) => c.parameters.error ?? c.scheme).join(', '))}).`,
      hint: hintFor(step, undefined),
    });
  const message = error instanceof Error ? clip(error.message) : 'an unexpected answer';
  return new MailboxError({
    code: 'bad_response',
    message: `The ${step} with ${where} failed: ${message}.`,
    hint:
      step === 'discovery' || step === 'registration'
        ? "Check that --auth-url points at the Agent Mailbox Service's authorization server."
        : 'Try again; if it keeps failing, connect again (agent-mailbox connect).',
  });
}

function hintFor(step: OAuthStep, error: string | undefined): string {
  if (step === 'renewal')
    return 'The grant is no longer valid (revoked by the person or the operator, unused for 90 days, or ended by the service). The operator connects the account again: agent-mailbox connect --credentials-dir <this directory>.';
  if (step === 'authorization' && error === 'access_denied')
    return 'The person declined (or unticked every scope). Run connect again when they want to connect.';
  if (step === 'registration')
    return 'The service refused to register this application; wait a minute (registration is rate-limited) and run connect again.';
  if (step === 'revocation')
    return 'Run disconnect again; if the service stays unreachable, --local-only removes the files and the person revokes the grant in the dashboard.';
  return 'Run connect again; the authorization and its code are single-use and short-lived.';
}

/** Server text, masked and cut to a readable length. */
function clip(text: string): string {
  const masked = redactCredentialEcho(text);
  return masked.length > 300 ? `${masked.slice(0, 300)}…` : masked;
}
