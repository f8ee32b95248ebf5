import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendRedirect } from './authorize-endpoint.js';
import { pagePaths, signInPage } from './consent-pages.js';
import { readForm } from '../form-body.js';
import type { GrantRecord } from '../grants/grant-store.js';
import { errorPage, escapeHtml, sendHtml, type HtmlPage } from './html-page.js';
import { OAuthFailure } from '../oauth-failure.js';
import type { OAuthHostContext } from '../oauth-host-context.js';

/** GET /oauth/grants: the signed-in person's connected applications, each with a Revoke button (the dashboard's job). */
export function handleGrantsPage(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const { browserId, setCookie } = ctx.browsers.ensureBrowser(req);
  const headers: Record<string, string> = setCookie === undefined ? {} : { 'set-cookie': setCookie };
  const person = ctx.directory.person(ctx.browsers.personOf(browserId) ?? '');
  const csrf = ctx.browsers.csrfToken(browserId);
  if (!person)
    return sendHtml(
      res,
      200,
      signInPage({
        csrf,
        returnTo: pagePaths.grants,
        purpose: 'Sign in to see the applications connected to your Agent Mailbox account.',
      }),
      headers,
    );
  sendHtml(res, 200, grantsPage(ctx, person.name, ctx.grants.grantsOf(person.id), csrf), headers);
}

/** POST /oauth/grants/revoke: ends one of the signed-in person's grants; its access tokens get 401 from then on. */
export async function handleRevokeGrant(
  ctx: OAuthHostContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch (error) {
    if (!(error instanceof OAuthFailure)) throw error;
    return sendHtml(
      res,
      error.status,
      errorPage('This form could not be read', error.description, 'Open the list of connected applications again.'),
    );
  }
  const browserId = ctx.browsers.browserOf(req);
  const personId = browserId === undefined ? undefined : ctx.browsers.personOf(browserId);
  if (browserId === undefined || personId === undefined || !ctx.browsers.isCsrfValid(browserId, form.get('csrf'))) {
    return sendHtml(
      res,
      403,
      errorPage(
        'This form was not sent from your grants page',
        'The form lacks the token of this browser, or you are signed out.',
        `Open ${pagePaths.grants} again and sign in.`,
      ),
    );
  }
  const grant = ctx.grants.get(form.get('grant') ?? '');
  if (!grant || grant.personId !== personId)
    return sendHtml(
      res,
      404,
      errorPage('No such connection', 'You have no connection with this id.', `Open ${pagePaths.grants} again.`),
    );
  await ctx.grants.revoke(grant, 'revoked by the person', ctx.now());
  ctx.log(`sandbox oauth: a person revoked grant of client ${grant.clientId}`);
  sendRedirect(res, 303, pagePaths.grants);
}

function grantsPage(ctx: OAuthHostContext, personName: string, grants: GrantRecord[], csrf: string): HtmlPage {
  const rows = grants.map((grant) => {
    const client = ctx.clients.get(grant.clientId);
    const name = client?.clientName ?? grant.clientId;
    const inbox =
      grant.defaultAccountId === undefined ? '' : (ctx.directory.inbox(grant.defaultAccountId)?.address ?? '');
    const state =
      grant.revokedAt === undefined
        ? `<form method="post" action="${pagePaths.revokeGrant}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="grant" value="${escapeHtml(grant.id)}"><button type="submit" aria-label="Revoke ${escapeHtml(name)}">Revoke</button></form>`
        : `Revoked ${escapeHtml(new Date(grant.revokedAt).toISOString())}`;
    return `<tr><td>${escapeHtml(name)}</td><td>${escapeHtml(grant.scopes.join(' '))}</td><td>${escapeHtml(inbox)}</td><td>${escapeHtml(new Date(grant.createdAt).toISOString())}</td><td>${state}</td></tr>`;
  });
  const table =
    rows.length === 0
      ? '<p>No application is connected.</p>'
      : `<table><caption>Connected applications</caption><thead><tr><th scope="col">Application</th><th scope="col">Permissions</th><th scope="col">Default inbox</th><th scope="col">Connected</th><th scope="col">Status</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return {
    title: 'Connected applications',
    body: `<h1>Connected applications</h1>\n<p>Signed in as <strong>${escapeHtml(personName)}</strong>.</p>\n${table}`,
  };
}
