import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { FormBrowser, hiddenField, inboxChoices, type PageResponse } from './consent-form-client.js';
import { authorizeParams, exchange, listAgents, pkce, registerClient, type TestClient } from './oauth-test-client.js';

// The sign-in and consent pages without --oauth-auto-approve (the path a person takes).
const sandbox = await startTestSandbox();
const client: TestClient = await registerClient(sandbox.authUrl, { client_name: 'Mail <b>Helper</b>' });

/** Opens the authorization URL in `browser` and signs in as `name`; returns the consent page. */
async function signedInConsent(
  browser: FormBrowser,
  name: string,
  overrides: Record<string, string | undefined> = {},
): Promise<{ consent: PageResponse; query: URLSearchParams }> {
  const query = authorizeParams(sandbox, client, pkce().challenge, { state: 'st-9', ...overrides });
  const signIn = await browser.get(`/oauth/authorize?${query.toString()}`);
  expect(signIn.status).toBe(200);
  const signedIn = await browser.post('/oauth/sign-in', {
    csrf: hiddenField(signIn.html, 'csrf'),
    return_to: hiddenField(signIn.html, 'return_to'),
    name,
  });
  expect(signedIn.status).toBe(303);
  return { consent: await browser.get(signedIn.location ?? ''), query };
}

/** Approves a consent page with the given inbox choice and scopes; returns the response. */
function answer(
  browser: FormBrowser,
  consent: PageResponse,
  fields: Record<string, string | string[]>,
): Promise<PageResponse> {
  return browser.post('/oauth/consent', {
    csrf: hiddenField(consent.html, 'csrf'),
    request: hiddenField(consent.html, 'request'),
    ...fields,
  });
}

describe('the sign-in page', () => {
  it('asks for a name in a labelled field, sets an HttpOnly SameSite cookie and forbids framing and scripts', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const page = await browser.get(`/oauth/authorize?${authorizeParams(sandbox, client, pkce().challenge).toString()}`);
    expect(page.status).toBe(200);
    expect(page.setCookie).toMatch(/^amx_browser=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(page.html).toMatch(/<label for="name">Your name<\/label>\s*<input type="text" id="name" name="name"/);
    expect(page.html).toContain('Mail &lt;b&gt;Helper&lt;/b&gt; wants to connect');
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'nonce-[^']+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a sign-in without the browser cookie or with a wrong CSRF token (403, no session)', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const page = await browser.get(`/oauth/authorize?${authorizeParams(sandbox, client, pkce().challenge).toString()}`);
    const returnTo = hiddenField(page.html, 'return_to');
    expect((await browser.post('/oauth/sign-in', { csrf: 'forged', return_to: returnTo, name: 'Eve' })).status).toBe(
      403,
    );
    const stranger = new FormBrowser(sandbox.authUrl);
    expect(
      (
        await stranger.post('/oauth/sign-in', {
          csrf: hiddenField(page.html, 'csrf'),
          return_to: returnTo,
          name: 'Eve',
        })
      ).status,
    ).toBe(403);
  });

  it('shows the form again with an error for an empty name, and never redirects outside its own pages', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const page = await browser.get('/oauth/grants');
    const csrf = hiddenField(page.html, 'csrf');
    const empty = await browser.post('/oauth/sign-in', { csrf, return_to: '/oauth/grants', name: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.html).toMatch(/role="alert" id="name-error">Enter a name/);
    const outside = await browser.post('/oauth/sign-in', {
      csrf,
      return_to: 'https://evil.example.test/',
      name: 'Carol',
    });
    expect(outside).toMatchObject({ status: 303, location: '/oauth/grants' });
  });
});

describe('the consent page', () => {
  it('creates the default inbox for a new person, and the code grants both scopes for it', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const { consent } = await signedInConsent(browser, 'Dora');
    expect(inboxChoices(consent.html)).toEqual(['new']);
    expect(consent.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:49152;");
    const approved = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'dora-inbox',
      scope: ['mail.read', 'mail.send'],
      decision: 'approve',
    });
    expect(approved.status).toBe(303);
    const back = new URL(approved.location ?? '');
    expect(Object.fromEntries(back.searchParams)).toEqual({
      code: expect.any(String),
      state: 'st-9',
      iss: sandbox.authUrl,
    });
  });

  it('issues a mail.read-only grant when mail.send is unticked, for the inbox chosen', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const pair = pkce();
    const { consent } = await signedInConsent(browser, 'Erin', { code_challenge: pair.challenge });
    const first = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'erin@erin-corp.test',
      scope: ['mail.read'],
      decision: 'approve',
    });
    const code = new URL(first.location ?? '').searchParams.get('code') ?? '';
    const tokens = await exchange(sandbox, client, code, pair.verifier);
    expect(tokens.scope).toBe('mail.read');
    const agents = (await listAgents(sandbox.authUrl, tokens.access_token)).body['agents'] as Array<{
      inboxId: string;
    }>;
    expect(agents.map((agent) => agent.inboxId)).toEqual(['erin@erin-corp.test']);

    // The next consent offers the inbox Erin now owns, checked by default.
    const { consent: again } = await signedInConsent(browser, 'Erin');
    expect(inboxChoices(again.html)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), 'new']);
    expect(again.html).toMatch(/value="[0-9a-f-]{36}" checked> erin@erin-corp\.test/);
  });

  it('sends the browser back with access_denied, state and iss when the person denies', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const { consent } = await signedInConsent(browser, 'Finn');
    const denied = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'finn-inbox',
      scope: ['mail.read'],
      decision: 'deny',
    });
    expect(denied.status).toBe(303);
    expect(Object.fromEntries(new URL(denied.location ?? '').searchParams)).toMatchObject({
      error: 'access_denied',
      state: 'st-9',
      iss: sandbox.authUrl,
    });
  });

  it('shows the page again with an error when nothing is ticked, an inbox name is taken or malformed, and then still takes an answer', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const { consent } = await signedInConsent(browser, 'Gus');
    const none = await answer(browser, consent, { inbox: 'new', new_inbox: 'gus-inbox', decision: 'approve' });
    expect(none.status).toBe(400);
    expect(none.html).toMatch(/role="alert">Tick at least one permission/);
    const taken = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'dora-inbox',
      scope: ['mail.read'],
      decision: 'approve',
    });
    expect(taken.html).toMatch(/dora-inbox@agent-mailbox\.test already exists/);
    const short = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'gus',
      scope: ['mail.read'],
      decision: 'approve',
    });
    expect(short.html).toMatch(/has 3 characters; on agent-mailbox\.test it needs 5 to 21/);
    expect(short.html).toContain('value="gus"');
    const ok = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'gus-inbox',
      scope: ['mail.read'],
      decision: 'approve',
    });
    expect(ok.status).toBe(303);
    const twice = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'gus-inbox2',
      scope: ['mail.read'],
      decision: 'approve',
    });
    expect(twice.status).toBe(400);
    expect(twice.location).toBeUndefined();
  });

  it('refuses an inbox of another person as the default, and a consent answered from another browser', async () => {
    const dora = new FormBrowser(sandbox.authUrl);
    const { consent: doraConsent } = await signedInConsent(dora, 'Dora');
    const doraInbox = inboxChoices(doraConsent.html)[0] ?? '';
    const henry = new FormBrowser(sandbox.authUrl);
    const { consent } = await signedInConsent(henry, 'Henry');
    const foreign = await answer(henry, consent, { inbox: doraInbox, scope: ['mail.read'], decision: 'approve' });
    expect(foreign.status).toBe(400);
    expect(foreign.html).toMatch(/Choose one of your inboxes/);
    // Dora's browser presents Henry's pending request with its own valid CSRF token.
    const crossed = await dora.post('/oauth/consent', {
      csrf: hiddenField(doraConsent.html, 'csrf'),
      request: hiddenField(consent.html, 'request'),
      inbox: doraInbox,
      scope: ['mail.read'],
      decision: 'approve',
    });
    expect(crossed.status).toBe(400);
    expect(crossed.location).toBeUndefined();
  });

  it('sends access_denied for a single-inbox resource the signed-in person does not own', async () => {
    const dora = new FormBrowser(sandbox.authUrl);
    const { consent } = await signedInConsent(dora, 'Dora');
    const doraInbox = inboxChoices(consent.html)[0] ?? '';
    const ivy = new FormBrowser(sandbox.authUrl);
    const query = authorizeParams(sandbox, client, pkce().challenge, {
      state: 's',
      resource: `urn:service:agent:${doraInbox}`,
    });
    const page = await ivy.get(`/oauth/authorize?${query.toString()}`);
    const signedIn = await ivy.post('/oauth/sign-in', {
      csrf: hiddenField(page.html, 'csrf'),
      return_to: hiddenField(page.html, 'return_to'),
      name: 'Ivy',
    });
    const refused = await ivy.get(signedIn.location ?? '');
    expect(refused.status).toBe(302);
    expect(new URL(refused.location ?? '').searchParams.get('error')).toBe('access_denied');
    // Dora gets the fixed inbox and no choice.
    const own = await dora.get(`/oauth/authorize?${query.toString()}`);
    expect(own.html).toMatch(/limited to one inbox: <strong>dora-inbox@agent-mailbox\.test<\/strong>/);
    expect(inboxChoices(own.html)).toEqual([]);
  });

  it('signs out from the consent page so another person can sign in on the same browser', async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const { consent, query } = await signedInConsent(browser, 'Jo');
    const out = await browser.post('/oauth/sign-out', {
      csrf: hiddenField(consent.html, 'csrf'),
      return_to: hiddenField(consent.html, 'return_to'),
    });
    expect(out).toMatchObject({ status: 303, location: `/oauth/authorize?${query.toString()}` });
    expect((await browser.get(out.location ?? '')).html).toContain('<label for="name">Your name</label>');
  });
});

describe("the grants page (the dashboard's revoke)", () => {
  it("lists the person's grants and revokes one with its button: the access token then gets 401", async () => {
    const browser = new FormBrowser(sandbox.authUrl);
    const pair = pkce();
    const { consent } = await signedInConsent(browser, 'Kim', { code_challenge: pair.challenge });
    const approved = await answer(browser, consent, {
      inbox: 'new',
      new_inbox: 'kim-inbox',
      scope: ['mail.read'],
      decision: 'approve',
    });
    const tokens = await exchange(
      sandbox,
      client,
      new URL(approved.location ?? '').searchParams.get('code') ?? '',
      pair.verifier,
    );
    const page = await browser.get('/oauth/grants');
    expect(page.html).toMatch(
      /<td>Mail &lt;b&gt;Helper&lt;\/b&gt;<\/td><td>mail\.read<\/td><td>kim-inbox@agent-mailbox\.test<\/td>/,
    );
    const grant = hiddenField(page.html, 'grant');

    const other = new FormBrowser(sandbox.authUrl);
    const otherPage = await other.get('/oauth/grants');
    const signedIn = await other.post('/oauth/sign-in', {
      csrf: hiddenField(otherPage.html, 'csrf'),
      return_to: '/oauth/grants',
      name: 'Lee',
    });
    expect(signedIn.status).toBe(303);
    expect(
      (await other.post('/oauth/grants/revoke', { csrf: hiddenField(otherPage.html, 'csrf'), grant })).status,
    ).toBe(404);
    expect((await browser.post('/oauth/grants/revoke', { csrf: 'forged', grant })).status).toBe(403);
    expect((await listAgents(sandbox.authUrl, tokens.access_token)).status).toBe(200);

    expect(await browser.post('/oauth/grants/revoke', { csrf: hiddenField(page.html, 'csrf'), grant })).toMatchObject({
      status: 303,
      location: '/oauth/grants',
    });
    const after = await listAgents(sandbox.authUrl, tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect((await browser.get('/oauth/grants')).html).toMatch(/Revoked \d{4}-/);
  });
});
