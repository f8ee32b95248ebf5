import { escapeHtml, type HtmlPage } from './html-page.js';
import { scopeDescriptions, type OAuthScope } from '../oauth-scopes.js';

/** Paths of the browser pages and their form targets. */
export const pagePaths = {
  authorize: '/oauth/authorize',
  signIn: '/oauth/sign-in',
  signOut: '/oauth/sign-out',
  consent: '/oauth/consent',
  grants: '/oauth/grants',
  revokeGrant: '/oauth/grants/revoke',
} as const;

/** The sign-in form: the sandbox's stand-in for the service's external identity provider. */
export function signInPage(view: {
  csrf: string;
  returnTo: string;
  purpose: string;
  error?: string;
  name?: string;
}): HtmlPage {
  const error =
    view.error === undefined ? '' : `<p class="error" role="alert" id="name-error">${escapeHtml(view.error)}</p>`;
  return {
    title: 'Sign in',
    body: `<h1>Sign in</h1>
<p>${escapeHtml(view.purpose)}</p>
<p class="hint">This sandbox stands in for the service's identity provider: your name is all it asks. A name it has not seen before creates a new account.</p>
<form method="post" action="${pagePaths.signIn}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<input type="hidden" name="return_to" value="${escapeHtml(view.returnTo)}">
<label for="name">Your name</label>
<input type="text" id="name" name="name" autocomplete="username" required maxlength="64" value="${escapeHtml(view.name ?? '')}"${view.error === undefined ? '' : ' aria-invalid="true" aria-describedby="name-error"'}>
${error}
<p><button type="submit">Sign in</button></p>
</form>`,
  };
}

/** What the consent page shows and remembers between attempts. */
export interface ConsentView {
  consentId: string;
  csrf: string;
  personName: string;
  clientName: string;
  clientId: string;
  redirectUri: string;
  /** What the token will be good for, in words. */
  resourceLabel: string;
  domain: string;
  /** The inboxes to choose the default from; one fixed inbox when the resource names it. */
  inboxes: Array<{ accountId: string; address: string }>;
  isInboxFixed: boolean;
  requestedScopes: OAuthScope[];
  checkedScopes: OAuthScope[];
  selectedInbox?: string;
  newInbox?: string;
  error?: string;
  /** Where the answer goes (CSP form-action). */
  formTarget: string;
  /** The authorization request's own URL, where signing out leads back to. */
  returnTo: string;
}

/** The consent page: default inbox, scopes (each can be unticked), approve or deny. */
export function consentPage(view: ConsentView): HtmlPage {
  const selected = view.selectedInbox ?? view.inboxes[0]?.accountId ?? 'new';
  const inboxChoices = view.isInboxFixed
    ? view.inboxes
        .map(
          (inbox) =>
            `<p>This connection is limited to one inbox: <strong>${escapeHtml(inbox.address)}</strong>.</p><input type="hidden" name="inbox" value="${escapeHtml(inbox.accountId)}">`,
        )
        .join('')
    : [
        ...view.inboxes.map(
          (inbox) =>
            `<label><input type="radio" name="inbox" value="${escapeHtml(inbox.accountId)}"${selected === inbox.accountId ? ' checked' : ''}> ${escapeHtml(inbox.address)}</label>`,
        ),
        `<label><input type="radio" name="inbox" value="new"${selected === 'new' ? ' checked' : ''}> Create a new inbox</label>`,
        `<label for="new_inbox">Name of the new inbox</label>`,
        `<input type="text" id="new_inbox" name="new_inbox" maxlength="120" aria-describedby="new-inbox-hint" value="${escapeHtml(view.newInbox ?? '')}">`,
        `<p class="hint" id="new-inbox-hint">A name such as my-agent-01 becomes my-agent-01@${escapeHtml(view.domain)}; a full address such as ops@example.test puts the inbox on that domain.</p>`,
      ].join('\n');
  const scopeChoices = view.requestedScopes
    .map(
      (scope) =>
        `<label><input type="checkbox" name="scope" value="${scope}"${view.checkedScopes.includes(scope) ? ' checked' : ''}> ${escapeHtml(scopeDescriptions[scope])} (${scope})</label>`,
    )
    .join('\n');
  const sendNote = view.requestedScopes.includes('mail.send')
    ? '<p class="hint">Untick sending to keep this connection read-only: the service itself then refuses every send, whatever the application is told.</p>'
    : '';
  const error = view.error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(view.error)}</p>`;
  return {
    title: 'Connect an application',
    formTargets: [view.formTarget],
    body: `<h1>Connect ${escapeHtml(view.clientName)}</h1>
<p>Signed in as <strong>${escapeHtml(view.personName)}</strong>.</p>
<form method="post" action="${pagePaths.signOut}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<input type="hidden" name="return_to" value="${escapeHtml(view.returnTo)}">
<button type="submit">Not you? Sign out</button>
</form>
<p><strong>${escapeHtml(view.clientName)}</strong> asks for access to ${escapeHtml(view.resourceLabel)}. After your answer the browser goes back to <code>${escapeHtml(view.redirectUri)}</code>.</p>
<p class="hint">Application id: <code>${escapeHtml(view.clientId)}</code></p>
<form method="post" action="${pagePaths.consent}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<input type="hidden" name="request" value="${escapeHtml(view.consentId)}">
<fieldset><legend>Default inbox for this connection</legend>
${inboxChoices}
</fieldset>
<fieldset><legend>Permissions</legend>
${scopeChoices}
${sendNote}
</fieldset>
${error}
<p><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  };
}
