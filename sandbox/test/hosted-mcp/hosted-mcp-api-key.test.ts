import { describe, expect, it } from 'vitest';
import { signUpInbox, startTestSandbox } from '../helpers/sandbox.js';
import { connect } from '../oauth/oauth-test-client.js';
import { callFailing, callOk, connectWithApiKey, initializeRequest, postMcp } from './hosted-mcp-kit.js';

// Spec §5 item 8: an inbox apiKey in any of three headers binds the connection to that inbox.
const sandbox = await startTestSandbox({ oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-keyed'] }] } });
const first = await signUpInbox(sandbox, 'keyed-agent');
const second = await signUpInbox(sandbox, 'other-agent');

const headerForms: Array<[string, (key: string) => Record<string, string>]> = [
  ['Authorization: Bearer <key>', (key) => ({ authorization: `Bearer ${key}` })],
  ['Authorization: ApiKey <key>', (key) => ({ authorization: `ApiKey ${key}` })],
  ['X-API-Key: <key>', (key) => ({ 'x-api-key': key })],
];

describe('an inbox apiKey', () => {
  it.each(headerForms)('in %s opens exactly that inbox, with full access', async (_form, headers) => {
    const { client } = await connectWithApiKey(sandbox.mcpUrl, headers(first.apiKey));
    const agents = await callOk(client, 'list_agents');
    expect((agents['agents'] as Array<Record<string, unknown>>).map((agent) => agent['address'])).toEqual([
      'keyed-agent@agent-mailbox.test',
    ]);
    const inbox = await callOk(client, 'read_inbox');
    expect((inbox['inbox'] as Record<string, unknown>)['address']).toBe('keyed-agent@agent-mailbox.test');
    const sent = await callOk(client, 'send_email', {
      to: ['other-agent@agent-mailbox.test'],
      subject: 'From a key',
      body: 'hello',
    });
    expect(sent['sent']).toMatchObject({ subject: 'From a key' });
  });

  it('reaches no other inbox through agent_id', async () => {
    const { client } = await connectWithApiKey(sandbox.mcpUrl, { 'x-api-key': first.apiKey });
    const otherId = String(
      (await callOk((await connectWithApiKey(sandbox.mcpUrl, { 'x-api-key': second.apiKey })).client, 'list_agents'))[
        'default_agent_id'
      ],
    );
    const { error, text } = await callFailing(client, 'read_inbox', { agent_id: otherId });
    expect(error).toMatchObject({ code: 'access_denied', next: { tool: 'list_agents' } });
    expect(text).toContain('opens only the inbox');
  });
});

describe('a transport session', () => {
  it('is bound to the apiKey of its first request: another key or a token on it is refused, the same key goes on', async () => {
    const opened = await postMcp(sandbox.mcpUrl, { 'x-api-key': first.apiKey }, initializeRequest);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

    const otherKey = await postMcp(sandbox.mcpUrl, { ...session, 'x-api-key': second.apiKey }, list);
    expect(otherKey.status).toBe(403);
    expect(otherKey.json).toMatchObject({
      error: { message: expect.stringContaining('bound to the credential that opened it') },
    });
    const { tokens } = await connect(sandbox, { resource: `${sandbox.mcpUrl}/mcp` });
    const token = await postMcp(sandbox.mcpUrl, { ...session, authorization: `Bearer ${tokens.access_token}` }, list);
    expect(token.status).toBe(403);
    const sameKeyOtherForm = await postMcp(
      sandbox.mcpUrl,
      { ...session, authorization: `ApiKey ${first.apiKey}` },
      list,
    );
    expect(sameKeyOtherForm.status).toBe(200);
    expect((sameKeyOtherForm.json?.['result'] as { tools: unknown[] }).tools.length).toBeGreaterThan(5);
  });

  it('is bound to the grant of its first token', async () => {
    const { tokens } = await connect(sandbox, { resource: `${sandbox.mcpUrl}/mcp` });
    const opened = await postMcp(sandbox.mcpUrl, { authorization: `Bearer ${tokens.access_token}` }, initializeRequest);
    const session = {
      'mcp-session-id': opened.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    const { tokens: otherGrant } = await connect(sandbox, { resource: `${sandbox.mcpUrl}/mcp` });
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect(
      (await postMcp(sandbox.mcpUrl, { ...session, authorization: `Bearer ${otherGrant.access_token}` }, list)).status,
    ).toBe(403);
    expect((await postMcp(sandbox.mcpUrl, { ...session, 'x-api-key': first.apiKey }, list)).status).toBe(403);
    expect(
      (await postMcp(sandbox.mcpUrl, { ...session, authorization: `Bearer ${tokens.access_token}` }, list)).status,
    ).toBe(200);
  });

  it('ends on DELETE by its own credential only, and is unknown afterwards', async () => {
    const opened = await postMcp(sandbox.mcpUrl, { 'x-api-key': first.apiKey }, initializeRequest);
    const session = {
      'mcp-session-id': opened.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    const end = (headers: Record<string, string>) =>
      fetch(`${sandbox.mcpUrl}/mcp`, { method: 'DELETE', headers: { ...session, ...headers } });
    expect((await end({ 'x-api-key': second.apiKey })).status).toBe(403);
    expect((await end({ 'x-api-key': first.apiKey })).status).toBe(200);
    expect(
      (
        await postMcp(
          sandbox.mcpUrl,
          { ...session, 'x-api-key': first.apiKey },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        )
      ).status,
    ).toBe(404);
  });

  it('answers an unknown session id with 404 and a request without one that is not initialize with 400', async () => {
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect(
      (
        await postMcp(
          sandbox.mcpUrl,
          { 'x-api-key': first.apiKey, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' },
          list,
        )
      ).status,
    ).toBe(404);
    expect((await postMcp(sandbox.mcpUrl, { 'x-api-key': first.apiKey }, list)).status).toBe(400);
  });
});

describe('the 2026-07-28 protocol era', () => {
  it('serves a client pinned to 2026-07-28 without sessions, each request with its own credential', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client(
      { name: 'modern-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${sandbox.mcpUrl}/mcp`), {
      requestInit: { headers: { 'x-api-key': first.apiKey } },
    });
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeUndefined();
      const agents = await callOk(client, 'list_agents');
      expect((agents['agents'] as Array<Record<string, unknown>>).map((agent) => agent['address'])).toEqual([
        'keyed-agent@agent-mailbox.test',
      ]);
    } finally {
      await client.close();
    }
    const refused = await fetch(`${sandbox.mcpUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      }),
    });
    expect(refused.status).toBe(401);
  });
});
