import { UnauthorizedError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { movableClock } from '../helpers/movable-clock.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { FormBrowser, hiddenField } from '../oauth/consent-form-client.js';
import { postForm } from '../oauth/oauth-test-client.js';
import {
  callFailing,
  callOk,
  connectWithOAuth,
  initializeRequest,
  postMcp,
  RecordingOAuthProvider,
  type PersonAtBrowser,
} from './hosted-mcp-kit.js';

// What a person decides about a grant reaches the hosted server: a read-only consent cannot send,
// a revoked grant is refused at the next call, and an expired access token is renewed in place.

/** A person at the real sign-in and consent pages who approves `scopes` for a new inbox `inbox`. */
function personApproving(authUrl: string, name: string, inbox: string, scopes: string[]): PersonAtBrowser {
  return async (url) => {
    const browser = new FormBrowser(authUrl);
    const signIn = await browser.get(url.toString());
    const signedIn = await browser.post('/oauth/sign-in', {
      csrf: hiddenField(signIn.html, 'csrf'),
      return_to: hiddenField(signIn.html, 'return_to'),
      name,
    });
    const consent = await browser.get(signedIn.location ?? '');
    const answered = await browser.post('/oauth/consent', {
      csrf: hiddenField(consent.html, 'csrf'),
      request: hiddenField(consent.html, 'request'),
      inbox: 'new',
      new_inbox: inbox,
      scope: scopes,
      decision: 'approve',
    });
    return new URL(answered.location ?? '');
  };
}

describe('a read-only grant (mail.send unticked at consent)', () => {
  it('reads, and every way to send is refused with insufficient_scope before anything reaches the mail store', async () => {
    const sandbox = await startTestSandbox();
    const provider = new RecordingOAuthProvider();
    const { client } = await connectWithOAuth(
      sandbox.mcpUrl,
      provider,
      personApproving(sandbox.authUrl, 'Rita', 'rita-reads', ['mail.read']),
    );
    expect(provider.savedTokens[0]?.scope).toBe('mail.read');
    expect(((await callOk(client, 'read_inbox'))['inbox'] as Record<string, unknown>)['address']).toBe(
      'rita-reads@agent-mailbox.test',
    );

    for (const [tool, args] of [
      ['send_email', { to: ['bob@example.org'], subject: 'x', body: 'y' }],
      ['reply_to_message', { message_id: 'M1', body: 'y' }],
      ['run_preset', { preset: 'send_mail', to: ['bob@example.org'], subject: 'x', body: 'y' }],
      [
        'jmap_request',
        { method_calls: [['EmailSubmission/set', { create: { s: { emailId: 'M1', identityId: 'i' } } }, 's']] },
      ],
      [
        'jmap_request',
        { method_calls: [['VacationResponse/set', { update: { singleton: { isEnabled: true } } }, 'v']] },
      ],
    ] as const) {
      const { error, text } = await callFailing(client, tool, args);
      expect(error, tool).toMatchObject({ code: 'insufficient_scope' });
      expect(text).toContain('mail.send');
    }
    const dry = await callOk(client, 'run_preset', {
      preset: 'send_mail',
      dry_run: true,
      to: ['bob@example.org'],
      subject: 'x',
      body: 'y',
    });
    expect(dry['_next']).toContain(
      'A real run would be refused: this connection has no mail.send scope (insufficient_scope).',
    );
    expect(await sandbox.outbox()).toEqual([]);
  });
});

describe('a revoked grant', () => {
  it('is refused on the next call: the SDK cannot refresh and goes back to the person', async () => {
    const sandbox = await startTestSandbox({ oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-revoked'] }] } });
    const provider = new RecordingOAuthProvider();
    const { client } = await connectWithOAuth(sandbox.mcpUrl, provider);
    await callOk(client, 'read_inbox');
    const { access_token: accessToken, refresh_token: refreshToken } = provider.savedTokens[0] ?? {};
    const revoked = await postForm(`${sandbox.authUrl}/oauth/revoke`, {
      token: refreshToken ?? '',
      client_id: String(provider.registration?.client_id),
    });
    expect(revoked.status).toBe(200);

    const stale = await postMcp(sandbox.mcpUrl, { authorization: `Bearer ${accessToken}` }, initializeRequest);
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(String(stale.json?.['error_description'])).toContain('revoked');

    const authorizationsBefore = provider.authorizationUrls.length;
    await expect(client.callTool({ name: 'read_inbox', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrls.length).toBe(authorizationsBefore + 1);
  });
});

describe('an expired access token', () => {
  it('is refreshed by the SDK and the same session goes on (--oauth-access-ttl 5, the sandbox clock moved past it)', async () => {
    const clock = movableClock();
    const sandbox = await startTestSandbox({
      now: clock.now,
      oauth: { accessTokenSeconds: 5, autoApprove: [{ person: 'Ada', inboxes: ['ada-expiry'] }] },
    });
    const provider = new RecordingOAuthProvider();
    const { client, transport } = await connectWithOAuth(sandbox.mcpUrl, provider);
    const sessionId = transport.sessionId;
    await callOk(client, 'read_inbox');
    const first = provider.savedTokens[0]?.access_token ?? '';
    expect(provider.savedTokens[0]?.expires_in).toBe(5);

    clock.moveTo(first, -1);
    const expired = await postMcp(sandbox.mcpUrl, { authorization: `Bearer ${first}` }, initializeRequest);
    expect(String(expired.json?.['error_description'])).toContain('expired');

    const inbox = await callOk(client, 'read_inbox');
    expect((inbox['inbox'] as Record<string, unknown>)['address']).toBe('ada-expiry@agent-mailbox.test');
    expect(provider.savedTokens).toHaveLength(2);
    expect(provider.savedTokens[1]?.access_token).not.toBe(first);
    expect(provider.savedTokens[1]?.refresh_token).not.toBe(provider.savedTokens[0]?.refresh_token);
    expect(transport.sessionId).toBe(sessionId);
    expect(provider.authorizationUrls).toHaveLength(1);
  });
});
