import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import {
  autoApprovedCode,
  connect,
  exchange,
  listAgents,
  pkce,
  postForm,
  refresh,
  registerClient,
} from './oauth-test-client.js';

let offsetMs = 0;
const day = 24 * 3600 * 1000;
const sandbox = await startTestSandbox({
  now: () => Date.now() + offsetMs,
  oauth: { accessTokenSeconds: 120, autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }] },
});
const tokenUrl = `${sandbox.authUrl}/oauth/token`;

/** Runs `work` with the sandbox clock moved forward by `ms`, then puts it back. */
async function later<T>(ms: number, work: () => Promise<T>): Promise<T> {
  offsetMs += ms;
  try {
    return await work();
  } finally {
    offsetMs -= ms;
  }
}

describe('POST /oauth/token with grant_type=authorization_code', () => {
  it('issues an at+jwt access token bound to the resource, a refresh token and the real lifetime', async () => {
    const { client, tokens } = await connect(sandbox);
    expect(tokens).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 120,
      refresh_token: expect.stringMatching(/^amr_/),
      scope: 'mail.read mail.send',
    });
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'EdDSA' });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      iss: sandbox.authUrl,
      aud: sandbox.oauth.jmapResource,
      sub: sandbox.oauth.autoApproved[0]?.personId,
      client_id: client.clientId,
      scope: 'mail.read mail.send',
      grant_id: expect.any(String),
      jti: expect.any(String),
    });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(120);
  });

  it('takes a confidential client with client_secret_post and refuses it without or with a wrong secret', async () => {
    const client = await registerClient(sandbox.authUrl, { token_endpoint_auth_method: 'client_secret_post' });
    expect(client.clientSecret).toMatch(/^amcs_/);
    const pair = pkce();
    const code = await autoApprovedCode(sandbox, client, pair);
    const fields = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: pair.verifier,
    };
    expect((await postForm(tokenUrl, fields)).body).toMatchObject({ error: 'invalid_client' });
    expect((await postForm(tokenUrl, { ...fields, client_secret: 'amcs_wrong' })).body).toMatchObject({
      error: 'invalid_client',
    });
    const basic = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams(fields).toString(),
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(await basic.json()).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringMatching(/client_secret_post/),
    });
  });

  it('refuses a wrong code_verifier and a missing one, and burns the code', async () => {
    const client = await registerClient(sandbox.authUrl);
    const pair = pkce();
    const code = await autoApprovedCode(sandbox, client, pair);
    const fields = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
    };
    const missing = await postForm(tokenUrl, fields);
    expect(missing).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/code_verifier is missing/) },
    });
    const wrong = await postForm(tokenUrl, { ...fields, code_verifier: pkce().verifier });
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringMatching(/PKCE/) },
    });
    expect((await postForm(tokenUrl, { ...fields, code_verifier: pair.verifier })).body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/already used/),
    });
  });

  it('refuses a code presented with another redirect_uri or by another client', async () => {
    const client = await registerClient(sandbox.authUrl, {
      redirect_uris: ['http://127.0.0.1:49152/callback', 'http://127.0.0.1:49152/other'],
    });
    const other = await registerClient(sandbox.authUrl);
    for (const change of [{ redirect_uri: 'http://127.0.0.1:49152/other' }, { client_id: other.clientId }]) {
      const pair = pkce();
      const code = await autoApprovedCode(sandbox, client, pair);
      const result = await postForm(tokenUrl, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirectUri,
        client_id: client.clientId,
        code_verifier: pair.verifier,
        ...change,
      });
      expect(result).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
  });

  it('refuses a resource at the token endpoint that differs from the authorization request', async () => {
    const client = await registerClient(sandbox.authUrl);
    const pair = pkce();
    const code = await autoApprovedCode(sandbox, client, pair);
    const result = await postForm(tokenUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: pair.verifier,
      resource: `${sandbox.oauth.jmapResource}/`,
    });
    expect(result).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('refuses a code used twice and revokes what the first exchange issued (RFC 6749 §4.1.2)', async () => {
    const client = await registerClient(sandbox.authUrl);
    const pair = pkce();
    const code = await autoApprovedCode(sandbox, client, pair);
    const first = await exchange(sandbox, client, code, pair.verifier);
    expect((await listAgents(sandbox.authUrl, first.access_token)).status).toBe(200);
    const second = await postForm(tokenUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: pair.verifier,
    });
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await listAgents(sandbox.authUrl, first.access_token)).status).toBe(401);
    expect((await refresh(sandbox, client, first.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a code after its 60 seconds and takes it at 59', async () => {
    const client = await registerClient(sandbox.authUrl);
    const pair = pkce();
    const code = await autoApprovedCode(sandbox, client, pair);
    const expired = await later(60_001, () =>
      postForm(tokenUrl, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirectUri,
        client_id: client.clientId,
        code_verifier: pair.verifier,
      }),
    );
    expect(expired).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringMatching(/expired/) },
    });
    const fresh = pkce();
    const code2 = await autoApprovedCode(sandbox, client, fresh);
    await later(59_000, () => exchange(sandbox, client, code2, fresh.verifier));
  });

  it('refuses JSON bodies, unknown grant types and repeated parameters', async () => {
    const json = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"authorization_code"}',
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/x-www-form-urlencoded/),
    });
    expect((await postForm(tokenUrl, { grant_type: 'password' })).body).toMatchObject({
      error: 'unsupported_grant_type',
    });
    const client = await registerClient(sandbox.authUrl);
    const repeated = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${client.clientId}`,
    });
    expect(await repeated.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/given 2 times/),
    });
    expect(
      (await postForm(tokenUrl, { grant_type: 'refresh_token', refresh_token: 'amr_x', client_id: 'amc_nobody' })).body,
    ).toMatchObject({ error: 'invalid_client' });
  });
});

describe('POST /oauth/token with grant_type=refresh_token', () => {
  it('rotates: every refresh returns a new refresh token and a working access token', async () => {
    const { client, tokens } = await connect(sandbox);
    const first = await refresh(sandbox, client, tokens.refresh_token);
    expect(first).toMatchObject({
      status: 200,
      body: { token_type: 'Bearer', expires_in: 120, scope: 'mail.read mail.send' },
    });
    expect(first.body['refresh_token']).not.toBe(tokens.refresh_token);
    expect((await listAgents(sandbox.authUrl, String(first.body['access_token']))).status).toBe(200);
    const second = await refresh(sandbox, client, String(first.body['refresh_token']));
    expect(second.status).toBe(200);
  });

  it('revokes the whole grant when a superseded refresh token comes back (spec §3)', async () => {
    const { client, tokens } = await connect(sandbox);
    const rotated = await refresh(sandbox, client, tokens.refresh_token);
    const newAccess = String(rotated.body['access_token']);
    expect((await listAgents(sandbox.authUrl, newAccess)).status).toBe(200);
    const reuse = await refresh(sandbox, client, tokens.refresh_token);
    expect(reuse).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringMatching(/revokes the whole grant/) },
    });
    const afterReuse = await listAgents(sandbox.authUrl, newAccess);
    expect(afterReuse.status).toBe(401);
    expect(afterReuse.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    expect((await refresh(sandbox, client, String(rotated.body['refresh_token']))).body).toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('lets one of two simultaneous refreshes with the same token win and the loser revoke the grant', async () => {
    const { client, tokens } = await connect(sandbox);
    const results = await Promise.all([
      refresh(sandbox, client, tokens.refresh_token),
      refresh(sandbox, client, tokens.refresh_token),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 400]);
    const winner = results.find((result) => result.status === 200);
    expect((await listAgents(sandbox.authUrl, String(winner?.body['access_token']))).status).toBe(401);
  });

  it('narrows the scope when asked (RFC 6749 §6) and gives the full scope back on the next refresh without one', async () => {
    const { client, tokens } = await connect(sandbox);
    const narrowed = await refresh(sandbox, client, tokens.refresh_token, { scope: 'mail.read' });
    expect(narrowed).toMatchObject({ status: 200, body: { scope: 'mail.read' } });
    expect(decodeJwt(String(narrowed.body['access_token']))['scope']).toBe('mail.read');
    const full = await refresh(sandbox, client, String(narrowed.body['refresh_token']));
    expect(full.body['scope']).toBe('mail.read mail.send');
  });

  it('refuses a wider scope than the grant with invalid_scope, and the refresh token stays good', async () => {
    const { client, tokens } = await connect(sandbox, { scope: 'mail.read' });
    expect(tokens.scope).toBe('mail.read');
    const wider = await refresh(sandbox, client, tokens.refresh_token, { scope: 'mail.read mail.send' });
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect((await refresh(sandbox, client, tokens.refresh_token)).status).toBe(200);
  });

  it('refuses a refresh token presented by another client', async () => {
    const { tokens } = await connect(sandbox);
    const other = await registerClient(sandbox.authUrl);
    expect((await refresh(sandbox, other, tokens.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('keeps a refresh token 90 days from its last rotation, on the sandbox clock', async () => {
    const { client, tokens } = await connect(sandbox);
    const at89 = await later(89 * day, () => refresh(sandbox, client, tokens.refresh_token));
    expect(at89.status).toBe(200);
    // The rotation at day 89 starts a new 90 days: day 178 is fine, day 179 + 90 idle days is not.
    const at178 = await later(178 * day, () => refresh(sandbox, client, String(at89.body['refresh_token'])));
    expect(at178.status).toBe(200);
    const idle = await later((178 + 90) * day + 1000, () =>
      refresh(sandbox, client, String(at178.body['refresh_token'])),
    );
    expect(idle).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringMatching(/90 days/) },
    });
  });

  it('expires the access token after its lifetime on the sandbox clock', async () => {
    const { tokens } = await connect(sandbox);
    // The sandbox clock runs on in real time too: a loaded machine took over a second between the
    // grant and the look at 119 s, so the still-valid look keeps a few seconds of margin.
    expect((await later(115_000, () => listAgents(sandbox.authUrl, tokens.access_token))).status).toBe(200);
    const expired = await later(121_000, () => listAgents(sandbox.authUrl, tokens.access_token));
    expect(expired).toMatchObject({
      status: 401,
      body: { error: 'invalid_token', error_description: expect.stringMatching(/expired/) },
    });
  });

  it('refuses refresh for a client that registered without the refresh_token grant, and issues it no refresh token', async () => {
    const client = await registerClient(sandbox.authUrl, { grant_types: ['authorization_code'] });
    const pair = pkce();
    const code = await autoApprovedCode(sandbox, client, pair);
    const result = await postForm(tokenUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: pair.verifier,
    });
    expect(result.status).toBe(200);
    expect(result.body['refresh_token']).toBeUndefined();
    expect((await refresh(sandbox, client, 'amr_anything')).body).toMatchObject({ error: 'unauthorized_client' });
  });
});
