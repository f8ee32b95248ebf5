import { mkdir, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { cleanUpAfter } from '../helpers/clean-up-after.js';
import { chromiumSkipReason, launchHeadlessChromium } from '../helpers/headless-chromium.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { FormBrowser, hiddenField } from './consent-form-client.js';
import { authorizeParams, exchange, jmapAs, listAgents, pkce, registerClient, sendCalls } from './oauth-test-client.js';

const skipReason = chromiumSkipReason;
// The run's one line saying how to enable the browser test.
if (skipReason) console.log(`[oauth consent browser] skipped: ${skipReason}`);
const outputDir = fileURLToPath(new URL('../../../test-output/', import.meta.url));

/** A loopback redirect URI the test listens on (RFC 8252 §7.3), resolving with the first callback's query. */
async function listenForCallback(): Promise<{ redirectUri: string; callback: Promise<URLSearchParams> }> {
  let deliver: (query: URLSearchParams) => void = () => {};
  const callback = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
    deliver(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanUpAfter(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, callback };
}

describe.skipIf(skipReason !== undefined)('the consent page in a real browser (headless Chromium)', () => {
  it('signs in, picks an inbox, unticks sending and approves; the grant reads mail, cannot send, and ends with Revoke', async () => {
    const sandbox = await startTestSandbox();
    // Pat already owns two inboxes (made through the same pages over plain HTTP).
    const setup = await registerClient(sandbox.authUrl);
    const form = new FormBrowser(sandbox.authUrl);
    for (const name of ['pat-first', 'pat-second']) {
      const page = await form.get(`/oauth/authorize?${authorizeParams(sandbox, setup, pkce().challenge).toString()}`);
      const consent = page.html.includes('name="request"')
        ? page
        : await form.get(
            (
              await form.post('/oauth/sign-in', {
                csrf: hiddenField(page.html, 'csrf'),
                return_to: hiddenField(page.html, 'return_to'),
                name: 'Pat',
              })
            ).location ?? '',
          );
      const answered = await form.post('/oauth/consent', {
        csrf: hiddenField(consent.html, 'csrf'),
        request: hiddenField(consent.html, 'request'),
        inbox: 'new',
        new_inbox: name,
        scope: 'mail.read',
        decision: 'approve',
      });
      expect(answered.status).toBe(303);
    }
    const mail = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    await mail.sendMail({
      from: 'friend@example.test',
      to: 'pat-second@agent-mailbox.test',
      subject: 'For the second inbox',
      text: 'hello',
    });

    // The client: dynamic registration with its exact loopback redirect URI, PKCE, state.
    const { redirectUri, callback } = await listenForCallback();
    const client = await registerClient(sandbox.authUrl, {
      redirect_uris: [redirectUri],
      client_name: 'Browser test client',
    });
    const pair = pkce();
    const query = authorizeParams(sandbox, client, pair.challenge, { state: 'browser-state' });

    const context = await launchHeadlessChromium();
    const page = await context.newPage();
    await page.goto(`${sandbox.authUrl}/oauth/authorize?${query.toString()}`);
    await page.getByLabel('Your name').fill('Pat');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Connect Browser test client' }).waitFor();
    await page.getByRole('radio', { name: 'pat-second@agent-mailbox.test' }).check();
    const send = page.getByRole('checkbox', { name: /Send mail/ });
    expect(await send.isChecked()).toBe(true);
    await send.uncheck();
    expect(await page.getByRole('checkbox', { name: /Read mail/ }).isChecked()).toBe(true);
    await mkdir(outputDir, { recursive: true });
    const screenshot = join(outputDir, 'oauth-consent-page.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect((await stat(screenshot)).size).toBeGreaterThan(1000);
    await page.getByRole('button', { name: 'Approve' }).click();

    const back = await callback;
    expect(back.get('state')).toBe('browser-state');
    expect(back.get('iss')).toBe(sandbox.authUrl);
    await page.waitForURL(`${redirectUri}?**`);
    const tokens = await exchange(sandbox, { ...client, redirectUri }, back.get('code') ?? '', pair.verifier);
    expect(tokens.scope).toBe('mail.read');

    const agents = (await listAgents(sandbox.authUrl, tokens.access_token)).body['agents'] as Array<{
      accountId: string;
      inboxId: string;
    }>;
    const second = agents.find((agent) => agent.inboxId === 'pat-second');
    expect(agents.map((agent) => agent.inboxId)).toEqual(['pat-first', 'pat-second']);
    const apiUrl = `${sandbox.apiUrl}/jmap`;
    const listed = await jmapAs(apiUrl, tokens.access_token, second?.accountId, [
      ['Email/query', { sort: [{ property: 'receivedAt', isAscending: false }] }, 'q'],
      ['Email/get', { '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: ['subject'] }, 'g'],
      ['Mailbox/query', { filter: { role: 'drafts' } }, 'd'],
    ]);
    expect(listed.status).toBe(200);
    const responses = listed.body['methodResponses'] as Array<[string, Record<string, unknown>, string]>;
    expect((responses[1]?.[1]['list'] as Array<{ subject: string }>).map((email) => email.subject)).toEqual([
      'For the second inbox',
    ]);
    const drafts = (responses[2]?.[1]['ids'] as string[])[0] ?? '';
    const refused = await jmapAs(
      apiUrl,
      tokens.access_token,
      second?.accountId,
      sendCalls('pat-second@agent-mailbox.test', 'friend@example.test', drafts, 'must not leave'),
    );
    expect(refused).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await sandbox.outbox()).toEqual([]);

    // The person revokes the connection on the grants page of the same browser.
    await page.goto(`${sandbox.authUrl}/oauth/grants`);
    await page.getByRole('button', { name: 'Revoke Browser test client' }).click();
    await page
      .getByText(/Revoked \d{4}-/)
      .first()
      .waitFor();
    const after = await listAgents(sandbox.authUrl, tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});
