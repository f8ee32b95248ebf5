import { describe, expect, it } from 'vitest';
import { signUpInbox, startTestSandbox } from '../helpers/sandbox.js';
import { connect } from '../oauth/oauth-test-client.js';
import { buildRequest, rawHttp } from '../helpers/raw-http.js';
import { initializeRequest, postMcp } from './hosted-mcp-kit.js';

// The hosted MCP server's endpoint (spec §2.4, §4.4, §5 item 8): metadata, challenges, the audience
// rule, Host and Origin checks, body cap.
const sandbox = await startTestSandbox({ oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-endpoint'] }] } });
const mcpPort = Number(new URL(sandbox.mcpUrl).port);
const signedUp = await signUpInbox(sandbox, 'endpoint-agent');

describe('the protected-resource metadata', () => {
  it('is exactly the fields of spec §2.4 at {mcp_url}/.well-known/oauth-protected-resource/mcp', async () => {
    const response = await fetch(`${sandbox.mcpUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: `${sandbox.mcpUrl}/mcp`,
      authorization_servers: [sandbox.authUrl],
      scopes_supported: ['mail.read', 'mail.send'],
      bearer_methods_supported: ['header'],
    });
  });

  it('is read with GET only, and nothing else is served besides /mcp', async () => {
    expect((await fetch(`${sandbox.mcpUrl}/.well-known/oauth-protected-resource/mcp`, { method: 'POST' })).status).toBe(
      405,
    );
    const other = await fetch(`${sandbox.mcpUrl}/.well-known/oauth-protected-resource`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'not_found' });
  });

  it('lets the authorization server accept {mcp_url}/mcp as a resource', async () => {
    const { tokens } = await connect(sandbox, { resource: `${sandbox.mcpUrl}/mcp` });
    expect(tokens.token_type).toBe('Bearer');
  });
});

describe('credentials at the endpoint', () => {
  it('answers a refused token with 401 invalid_token and a challenge naming the metadata and the error', async () => {
    const { status, headers, json } = await postMcp(
      sandbox.mcpUrl,
      { authorization: 'Bearer eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCJ9.e30.c2ln' },
      initializeRequest,
    );
    expect(status).toBe(401);
    expect(json).toMatchObject({ error: 'invalid_token' });
    expect(headers.get('www-authenticate')).toMatch(
      new RegExp(
        `^Bearer realm="agent-mailbox", resource_metadata="${sandbox.mcpUrl}/\\.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="[^"]+"$`,
      ),
    );
  });

  it('refuses an access token for the JMAP resource (audience checked)', async () => {
    const { tokens } = await connect(sandbox);
    const { status, json } = await postMcp(
      sandbox.mcpUrl,
      { authorization: `Bearer ${tokens.access_token}` },
      initializeRequest,
    );
    expect(status).toBe(401);
    expect(String(json?.['error_description'])).toContain(
      `is for the resource ${sandbox.apiUrl}/jmap, not for this one`,
    );
  });

  it('refuses an apiKey that opens no inbox, and two credentials that disagree', async () => {
    const unknown = await postMcp(sandbox.mcpUrl, { 'x-api-key': 'amk_not-a-key' }, initializeRequest);
    expect(unknown.status).toBe(401);
    expect(unknown.json).toMatchObject({
      error: 'invalid_token',
      error_description: expect.stringContaining('opens no inbox'),
    });
    const both = await postMcp(
      sandbox.mcpUrl,
      { authorization: `ApiKey ${signedUp.apiKey}`, 'x-api-key': 'amk_other' },
      initializeRequest,
    );
    expect(both.status).toBe(400);
    expect(both.json).toMatchObject({ error: 'invalid_request' });
    const scheme = await postMcp(
      sandbox.mcpUrl,
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      initializeRequest,
    );
    expect(scheme.status).toBe(400);
  });

  it('never echoes a refused credential', async () => {
    const secret = 'amk_secret-looking-value-1234567890';
    const { text, headers } = await postMcp(sandbox.mcpUrl, { authorization: `Bearer ${secret}` }, initializeRequest);
    expect(text).not.toContain(secret);
    expect(headers.get('www-authenticate')).not.toContain(secret);
  });
});

describe('DNS rebinding and browsers', () => {
  it('answers 421 for a Host that is not a loopback name', async () => {
    const response = await rawHttp(
      mcpPort,
      buildRequest(
        'POST',
        '/mcp',
        { host: `rebound.example:${mcpPort}`, 'content-type': 'application/json', 'x-api-key': signedUp.apiKey },
        JSON.stringify(initializeRequest),
      ),
    );
    expect(response.status).toBe(421);
  });

  it('refuses a page from another origin with 403 and serves a loopback origin with CORS headers', async () => {
    const foreign = await postMcp(
      sandbox.mcpUrl,
      { origin: 'https://evil.example', 'x-api-key': signedUp.apiKey },
      initializeRequest,
    );
    expect(foreign.status).toBe(403);
    expect(foreign.json).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('origin'),
    });
    const local = await postMcp(
      sandbox.mcpUrl,
      { origin: 'http://localhost:6274', 'x-api-key': signedUp.apiKey },
      initializeRequest,
    );
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(local.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    const preflight = await fetch(`${sandbox.mcpUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:6274', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });
});

describe('request bodies', () => {
  it('refuses a body over 8 MiB with 413 before parsing it, declared or streamed', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"help","arguments":{"topic":"${'a'.repeat(9 * 1024 * 1024)}"}}}`;
    const declared = await postMcp(sandbox.mcpUrl, { 'x-api-key': signedUp.apiKey }, big);
    expect(declared.status).toBe(413);
    const chunks = async function* (): AsyncGenerator<Uint8Array> {
      for (let sent = 0; sent < 9; sent += 1) yield Buffer.alloc(1024 * 1024, 0x20);
    };
    const streamed = await fetch(`${sandbox.mcpUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': signedUp.apiKey,
      },
      body: ReadableStream.from(chunks()),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const { status, json } = await postMcp(sandbox.mcpUrl, { 'x-api-key': signedUp.apiKey }, '{not json');
    expect(status).toBe(400);
    expect(json).toMatchObject({ error: { code: -32700 } });
  });
});

describe('transport sessions', () => {
  it('are kept up to a bound: past it the least recently used one is closed', async () => {
    const small = await startTestSandbox({ hostedMcp: { maxSessions: 2 } });
    const key = { 'x-api-key': (await signUpInbox(small, 'session-cap')).apiKey };
    const open = async () => (await postMcp(small.mcpUrl, key, initializeRequest)).headers.get('mcp-session-id') ?? '';
    const list = (sessionId: string) =>
      postMcp(
        small.mcpUrl,
        { ...key, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      );
    const first = await open();
    const second = await open();
    expect((await list(first)).status).toBe(200);
    await open();
    expect((await list(second)).status).toBe(404);
    expect((await list(first)).status).toBe(200);
  });
});
