import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  authorizationRedirect,
  checkAuthorizationRequest,
  type AuthorizationRequest,
} from './authorization-request.js';
import type { PendingConsent } from './browser-sessions.js';
import { consentPage, pagePaths, signInPage, type ConsentView } from './consent-pages.js';
import { errorPage, sendHtml } from './html-page.js';
import { findClient, type OAuthHostContext } from '../oauth-host-context.js';
import type { OAuthScope } from '../oauth-scopes.js';
import { formActionSourceOf } from '../clients/redirect-uri-rules.js';

/** GET /oauth/authorize (spec §4.1): checks the request, then signs the person in and asks for consent. */
export async function handleAuthorize(
  ctx: OAuthHostContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const check = await checkAuthorizationRequest(
    url.searchParams,
    (clientId) => findClient(ctx, clientId),
    ctx.resources,
  );
  if (!check.ok && check.display === 'page')
    return sendHtml(res, 400, errorPage('This connection cannot go on', check.message, check.hint));
  if (!check.ok) {
    return sendRedirect(
      res,
      302,
      authorizationRedirect(check.redirectUri, ctx.issuer(), {
        error: check.error,
        error_description: check.description,
        state: check.state,
      }),
    );
  }
  const request = check.request;
  if (ctx.autoApprove) return autoApprove(ctx, request, res);

  const { browserId, setCookie } = ctx.browsers.ensureBrowser(req);
  const headers: Record<string, string> = setCookie === undefined ? {} : { 'set-cookie': setCookie };
  const person = ctx.directory.person(ctx.browsers.personOf(browserId) ?? '');
  const clientName = request.client.clientName ?? request.client.clientId;
  if (!person) {
    const purpose = `${clientName} wants to connect to your Agent Mailbox account. Sign in to choose an inbox and what it may do.`;
    return sendHtml(
      res,
      200,
      signInPage({
        csrf: ctx.browsers.csrfToken(browserId),
        returnTo: `${pagePaths.authorize}?${request.query}`,
        purpose,
      }),
      headers,
    );
  }
  if (request.target.kind === 'inbox' && !ctx.directory.ownedInbox(person.id, request.target.accountId)) {
    return deny(ctx, res, request, 302, `${person.name} does not own the inbox the application asked for.`);
  }
  const consentId = ctx.browsers.holdConsent(browserId, person.id, request);
  const pending = ctx.browsers.pendingConsent(consentId, browserId);
  if (!pending) throw new Error('a consent just held is gone');
  sendHtml(res, 200, consentPage(consentViewOf(ctx, pending, consentId, {})), headers);
}

/** The consent page's data for a pending request, with what the person entered last time. */
export function consentViewOf(
  ctx: OAuthHostContext,
  pending: PendingConsent,
  consentId: string,
  last: { checkedScopes?: OAuthScope[]; selectedInbox?: string; newInbox?: string; error?: string },
): ConsentView {
  const { request } = pending;
  const target = request.target;
  const fixed = target.kind === 'inbox' ? ctx.directory.inbox(target.accountId) : undefined;
  const inboxes = (fixed ? [fixed] : ctx.directory.inboxesOf(pending.personId)).map(({ accountId, address }) => ({
    accountId,
    address,
  }));
  const resourceLabel =
    target.kind === 'jmap'
      ? 'your inboxes over JMAP (it names the inbox on every request)'
      : target.kind === 'mcp'
        ? 'your inboxes through the hosted MCP server'
        : 'one inbox';
  return {
    consentId,
    csrf: ctx.browsers.csrfToken(pending.browserId),
    personName: ctx.directory.person(pending.personId)?.name ?? '',
    clientName: request.client.clientName ?? request.client.clientId,
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    resourceLabel,
    domain: ctx.domain,
    inboxes,
    isInboxFixed: fixed !== undefined,
    requestedScopes: request.scopes,
    checkedScopes: last.checkedScopes ?? request.scopes,
    formTarget: formActionSourceOf(request.redirectUri),
    returnTo: `${pagePaths.authorize}?${request.query}`,
    ...(last.selectedInbox === undefined ? {} : { selectedInbox: last.selectedInbox }),
    ...(last.newInbox === undefined ? {} : { newInbox: last.newInbox }),
    ...(last.error === undefined ? {} : { error: last.error }),
  };
}

/** Issues the code and sends the browser back to the client with code, state and iss. */
export function approve(
  ctx: OAuthHostContext,
  res: ServerResponse,
  request: AuthorizationRequest,
  status: 302 | 303,
  grant: { personId: string; scopes: OAuthScope[]; defaultAccountId?: string },
): void {
  const code = ctx.codes.issue({
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    ...grant,
  });
  sendRedirect(res, status, authorizationRedirect(request.redirectUri, ctx.issuer(), { code, state: request.state }));
}

/** Sends the browser back with access_denied (RFC 6749 §4.1.2.1). */
export function deny(
  ctx: OAuthHostContext,
  res: ServerResponse,
  request: AuthorizationRequest,
  status: 302 | 303,
  description: string,
): void {
  sendRedirect(
    res,
    status,
    authorizationRedirect(request.redirectUri, ctx.issuer(), {
      error: 'access_denied',
      error_description: description,
      state: request.state,
    }),
  );
}

/** --oauth-auto-approve: no page; the requested scopes and the person's first inbox. */
function autoApprove(ctx: OAuthHostContext, request: AuthorizationRequest, res: ServerResponse): void {
  const people = ctx.autoApprove ?? [];
  const hint = request.loginHint?.toLowerCase();
  const person = hint === undefined ? people[0] : people.find((candidate) => candidate.name.toLowerCase() === hint);
  if (!person) return deny(ctx, res, request, 302, 'login_hint names no person this sandbox approves for.');
  let defaultAccountId = person.defaultAccountId;
  if (request.target.kind === 'inbox') {
    if (!ctx.directory.ownedInbox(person.personId, request.target.accountId))
      return deny(ctx, res, request, 302, `${person.name} does not own the inbox the application asked for.`);
    defaultAccountId = request.target.accountId;
  }
  approve(ctx, res, request, 302, { personId: person.personId, scopes: request.scopes, defaultAccountId });
}

/** A redirect that leaks nothing: no caching, no referrer. */
export function sendRedirect(res: ServerResponse, status: 302 | 303, location: string): void {
  res.writeHead(status, {
    location,
    'cache-control': 'no-store',
    'content-length': '0',
    'referrer-policy': 'no-referrer',
  });
  res.end();
}
