import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { connect, listAgents, postForm, refresh, registerClient } from './oauth-test-client.js';

const mcpUrl = 'http://127.0.0.1:9/hosted';
const sandbox = await startTestSandbox({
  mcpUrl,
  oauth: {
    autoApprove: [
      { person: 'Ada', inboxes: ['ada-inbox', 'ops@acme.test'] },
      { person: 'Bob', inboxes: ['bob-inbox'] },
    ],
  },
});
const revokeUrl = `${sandbox.authUrl}/oauth/revoke`;
const [ada, bob] = sandbox.oauth.autoApproved;

describe('POST /oauth/revoke (RFC 7009, spec §3)', () => {
  it('answers 200 for an unknown token and for garbage', async () => {
    const client = await registerClient(sandbox.authUrl);
    for (const token of ['amr_unknown', 'not.a.jwt', 'eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCJ9.e30.AAAA']) {
      const result = await postForm(revokeUrl, { token, client_id: client.clientId });
      expect(result.status, token).toBe(200);
    }
  });

  it('revokes the grant by its refresh token: the access token then gets 401 invalid_token with WWW-Authenticate', async () => {
    const { client, tokens } = await connect(sandbox);
    expect((await postForm(revokeUrl, { token: tokens.refresh_token, client_id: client.clientId })).status).toBe(200);
    const after = await listAgents(sandbox.authUrl, tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(/revoked/) });
    expect(after.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="agent-mailbox", error="invalid_token", error_description="[^"]*revoked/,
    );
    expect((await refresh(sandbox, client, tokens.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes the grant by its access token, even an expired one', async () => {
    const { client, tokens } = await connect(sandbox);
    expect(
      (
        await postForm(revokeUrl, {
          token: tokens.access_token,
          token_type_hint: 'access_token',
          client_id: client.clientId,
        })
      ).status,
    ).toBe(200);
    expect((await refresh(sandbox, client, tokens.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('leaves a token of another client alone and still answers 200', async () => {
    const { client, tokens } = await connect(sandbox);
    const other = await registerClient(sandbox.authUrl);
    expect((await postForm(revokeUrl, { token: tokens.refresh_token, client_id: other.clientId })).status).toBe(200);
    expect((await refresh(sandbox, client, tokens.refresh_token)).status).toBe(200);
  });

  it('refuses an unknown client and a missing token', async () => {
    expect(await postForm(revokeUrl, { token: 'x', client_id: 'amc_nobody' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_client' },
    });
    const client = await registerClient(sandbox.authUrl);
    expect(await postForm(revokeUrl, { client_id: client.clientId })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
  });
});

describe('GET /api/v1/agents (spec §2.1, §4.1)', () => {
  it("lists only the token owner's inboxes in the spec §2.1 shape, with _next", async () => {
    const { tokens } = await connect(sandbox);
    const { status, body } = await listAgents(sandbox.authUrl, tokens.access_token);
    expect(status).toBe(200);
    const agents = body['agents'] as Array<Record<string, unknown>>;
    expect(agents.map((agent) => agent['accountId'])).toEqual(ada?.inboxes.map((inbox) => inbox.accountId));
    expect(agents[0]).toEqual({
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      inboxId: 'ada-inbox',
      status: 'active',
      reputation: 0,
      linkedAt: expect.stringMatching(/Z$/),
      activatedAt: expect.stringMatching(/Z$/),
    });
    // A custom-domain inbox's id is its full address (spec §1 fact 4a).
    expect(agents[1]?.['inboxId']).toBe('ops@acme.test');
    expect(body['_next']).toEqual(expect.arrayContaining([expect.stringContaining('X-Service-Account-Id')]));
    expect(JSON.stringify(body)).not.toContain(bob?.inboxes[0]?.accountId);
  });

  it('takes a token for the MCP resource, refuses one for a single inbox', async () => {
    const mcp = await connect(sandbox, { resource: `${mcpUrl}/mcp` });
    expect((await listAgents(sandbox.authUrl, mcp.tokens.access_token)).status).toBe(200);
    const single = await connect(sandbox, { resource: `urn:service:agent:${ada?.inboxes[0]?.accountId}` });
    const refused = await listAgents(sandbox.authUrl, single.tokens.access_token);
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });

  it('answers a request without a token 401 with a bare Bearer challenge, and a capability JWT or garbage 401 invalid_token', async () => {
    const none = await listAgents(sandbox.authUrl, undefined);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="agent-mailbox"');
    const garbage = await listAgents(sandbox.authUrl, 'abc.def.ghi');
    expect(garbage).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });

  it('refuses a token whose signature was tampered with', async () => {
    const { tokens } = await connect(sandbox);
    const [header, payload, signature] = tokens.access_token.split('.');
    const forged = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    forged['sub'] = bob?.personId;
    const tampered = `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
    expect((await listAgents(sandbox.authUrl, tampered)).status).toBe(401);
  });
});
