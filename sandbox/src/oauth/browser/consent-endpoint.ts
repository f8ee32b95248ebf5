import type { IncomingMessage, ServerResponse } from 'node:http';
import { approve, consentViewOf, deny, sendRedirect } from './authorize-endpoint.js';
import { consentPage, pagePaths, signInPage } from './consent-pages.js';
import { readForm } from '../form-body.js';
import { errorPage, sendHtml } from './html-page.js';
import { createOwnedInbox, InboxRequestError } from '../accounts/inbox-provisioner.js';
import { OAuthFailure } from '../oauth-failure.js';
import type { OAuthHostContext } from '../oauth-host-context.js';
import { isOAuthScope } from '../oauth-scopes.js';

const startAgain = 'Go back to the application and start the connection again.';

/** A browser form's fields after the cookie and CSRF checks, or undefined when a page was already sent. */
async function checkedForm(
  ctx: OAuthHostContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ form: URLSearchParams; browserId: string } | undefined> {
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch (error) {
    if (!(error instanceof OAuthFailure)) throw error;
    sendHtml(res, error.status, errorPage('This form could not be read', error.description, startAgain));
    return undefined;
  }
  const browserId = ctx.browsers.browserOf(req);
  if (browserId === undefined || !ctx.browsers.isCsrfValid(browserId, form.get('csrf'))) {
    sendHtml(
      res,
      403,
      errorPage(
        'This form was not sent from this sign-in page',
        'The form lacks the token of this browser, or the browser sent no sign-in cookie.',
        `Allow cookies for this site, then ${startAgain.charAt(0).toLowerCase()}${startAgain.slice(1)}`,
      ),
    );
    return undefined;
  }
  return { form, browserId };
}

/** Only paths of this server's own pages: the sign-in form must not become an open redirect. */
function safeReturnTo(value: string | null): string {
  if (
    value !== null &&
    (value.startsWith(`${pagePaths.authorize}?`) || value === pagePaths.grants) &&
    !/[\r\n\\]/.test(value)
  )
    return value;
  return pagePaths.grants;
}

/** POST /oauth/sign-in: the stand-in identity provider; a new name is a new person. */
export async function handleSignIn(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const checked = await checkedForm(ctx, req, res);
  if (!checked) return;
  const { form, browserId } = checked;
  const returnTo = safeReturnTo(form.get('return_to'));
  const name = (form.get('name') ?? '').trim().replace(/\s+/g, ' ');
  if (name.length === 0 || name.length > 64 || /[\p{Cc}\p{Cf}]/u.test(name)) {
    const purpose = 'Sign in to go on.';
    return sendHtml(
      res,
      400,
      signInPage({
        csrf: ctx.browsers.csrfToken(browserId),
        returnTo,
        purpose,
        name,
        error: 'Enter a name of 1 to 64 characters, without control characters.',
      }),
    );
  }
  const person = await ctx.directory.signIn(name);
  ctx.browsers.signIn(browserId, person.id);
  sendRedirect(res, 303, returnTo);
}

/** POST /oauth/sign-out: so another person can sign in on this browser. */
export async function handleSignOut(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const checked = await checkedForm(ctx, req, res);
  if (!checked) return;
  ctx.browsers.signOut(checked.browserId);
  sendRedirect(res, 303, safeReturnTo(checked.form.get('return_to')));
}

/** POST /oauth/consent: the person's answer; approve issues a code, deny sends access_denied back. */
export async function handleConsent(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const checked = await checkedForm(ctx, req, res);
  if (!checked) return;
  const { form, browserId } = checked;
  const consentId = form.get('request') ?? '';
  const pending = ctx.browsers.pendingConsent(consentId, browserId);
  if (!pending)
    return sendHtml(
      res,
      400,
      errorPage(
        'This consent page has expired',
        'The request it answered is no longer open (it was answered, or ten minutes passed).',
        startAgain,
      ),
    );
  if (ctx.browsers.personOf(browserId) !== pending.personId) {
    return sendHtml(
      res,
      403,
      errorPage(
        'You were signed out',
        'The person who opened this consent page is no longer signed in on this browser.',
        startAgain,
      ),
    );
  }
  const { request } = pending;
  if (form.get('decision') !== 'approve') {
    ctx.browsers.dropConsent(consentId);
    return deny(ctx, res, request, 303, 'The person denied the request.');
  }
  const checkedScopes = request.scopes.filter((scope) => form.getAll('scope').filter(isOAuthScope).includes(scope));
  const choice = form.get('inbox') ?? '';
  const newInbox = form.get('new_inbox') ?? '';
  const again = (error: string): void =>
    sendHtml(
      res,
      400,
      consentPage(consentViewOf(ctx, pending, consentId, { checkedScopes, selectedInbox: choice, newInbox, error })),
    );
  if (checkedScopes.length === 0) return again('Tick at least one permission, or deny the request.');

  let accountId: string;
  if (request.target.kind === 'inbox') {
    accountId = request.target.accountId;
  } else if (choice === 'new') {
    if (newInbox.trim() === '') return again('Enter a name for the new inbox, or choose one you have.');
    try {
      accountId = (await createOwnedInbox(ctx.provisioner, pending.personId, newInbox)).accountId;
    } catch (error) {
      if (error instanceof InboxRequestError) return again(error.message);
      throw error;
    }
    ctx.log(`sandbox oauth: created inbox ${ctx.directory.inbox(accountId)?.address ?? accountId} for a consent`);
  } else {
    const owned = ctx.directory.ownedInbox(pending.personId, choice);
    if (!owned) return again('Choose one of your inboxes as the default, or create a new one.');
    accountId = owned.accountId;
  }
  // Taken only now: a page re-shown with an error must still be answerable.
  if (!ctx.browsers.pendingConsent(consentId, browserId))
    return sendHtml(
      res,
      400,
      errorPage('This consent page was already answered', 'Another answer to this request came first.', startAgain),
    );
  ctx.browsers.dropConsent(consentId);
  approve(ctx, res, request, 303, { personId: pending.personId, scopes: checkedScopes, defaultAccountId: accountId });
}
