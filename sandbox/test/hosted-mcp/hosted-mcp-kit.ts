import { randomBytes } from 'node:crypto';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import nodemailer from 'nodemailer';
import { expect } from 'vitest';
import { createEmbeddedBackend } from '../../src/embedded/create-embedded-backend.js';
import type { BackendContext, MailBackend } from '../../src/mail-backend.js';
import { cleanUpAfter } from '../helpers/clean-up-after.js';

/** Where the test's "application" says it listens (nothing does: the code is read from Location). */
export const mcpTestRedirectUri = 'http://127.0.0.1:49153/callback';

/**
 * The OAuth side of an MCP application under test, implemented on the SDK's own provider interface:
 * it keeps what the SDK hands it (registration, tokens, PKCE verifier, discovery) and records the
 * authorization URLs the SDK would open in a browser.
 */
export class RecordingOAuthProvider implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = [];
  /** Every token response the SDK saved, oldest first (a refresh adds one). */
  readonly savedTokens: StoredOAuthTokens[] = [];
  private current: StoredOAuthTokens | undefined;
  registration: StoredOAuthClientInformation | undefined;
  lastState: string | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;

  constructor(private readonly name = 'Hosted MCP test app') {}

  get redirectUrl(): string {
    return mcpTestRedirectUri;
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [mcpTestRedirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString('hex');
    return this.lastState;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.registration;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.registration = info;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.current = tokens;
    this.savedTokens.push(tokens);
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** The SDK drops what the server said is no longer valid (a revoked grant's tokens). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'client') this.registration = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/** What stands in for the person at the browser: given the authorization URL, returns the redirect back. */
export type PersonAtBrowser = (authorizationUrl: URL) => Promise<URL>;

/** --oauth-auto-approve: the authorization endpoint answers at once with a redirect. */
export const autoApprovingPerson: PersonAtBrowser = async (url) => {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || location === null)
    throw new Error(`authorization answered ${response.status}: ${await response.text()}`);
  return new URL(location);
};

/** A connected SDK client and its transport. */
export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/**
 * The SDK's whole OAuth client flow against the sandbox: the first connect meets 401, the SDK
 * discovers the authorization server from WWW-Authenticate, registers, and sends the person to
 * the authorization URL (PKCE S256, resource); the redirect's code and iss finish it; a second
 * connect opens the session.
 */
export async function connectWithOAuth(
  mcpUrl: string,
  provider: RecordingOAuthProvider,
  person: PersonAtBrowser = autoApprovingPerson,
): Promise<Connected> {
  const endpoint = new URL(`${mcpUrl}/mcp`);
  const client = new Client({ name: 'hosted-mcp-test', version: '1.0.0' });
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const url = provider.authorizationUrls.at(-1);
  if (!url) throw new Error('the SDK did not start an authorization');
  const back = await person(url);
  // The SDK leaves state to the application (RFC 6749 §10.12).
  expect(back.searchParams.get('state')).toBe(provider.lastState);
  await first.finishAuth(back.searchParams);
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await client.connect(transport);
  cleanUpAfter(() => client.close());
  return { client, transport };
}

/** Connects with an inbox apiKey in one of the three header forms of spec §5 item 8. */
export async function connectWithApiKey(mcpUrl: string, headers: Record<string, string>): Promise<Connected> {
  const client = new Client({ name: 'hosted-mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${mcpUrl}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  cleanUpAfter(() => client.close());
  return { client, transport };
}

/** Calls a tool and returns its structured content, failing on an error result. */
export async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

/** Calls a tool that must fail; returns the error fields and the text a model reads. */
export async function callFailing(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ error: Record<string, unknown>; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should fail`).toBe(true);
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  return { error: ((result.structuredContent ?? {}) as { error?: Record<string, unknown> }).error ?? {}, text };
}

/** A mail backend that records the Authorization header of every request reaching it, then serves it with `inner`. */
export function recordingBackend(seen: string[]): (ctx: BackendContext) => Promise<MailBackend> {
  return async (ctx) => {
    const inner = await createEmbeddedBackend(ctx);
    return {
      kind: inner.kind,
      handle(req, res) {
        seen.push(req.headers.authorization ?? '');
        inner.handle(req, res);
      },
      createInbox: (address) => inner.createInbox(address),
      deliverInbound: (raw, envelope) => inner.deliverInbound(raw, envelope),
      outbox: () => inner.outbox(),
      close: () => inner.close(),
    };
  };
}

/** Delivers a message from outside through the sandbox's SMTP listener. */
export async function deliverFromOutside(
  smtpPort: number,
  message: { from: string; to: string; subject: string; text: string; html?: string; headers?: Record<string, string> },
): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

/** One JSON-RPC exchange over raw HTTP (fetch), for what the SDK client never sends. */
export async function postMcp(
  mcpUrl: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> | undefined; text: string }> {
  const response = await fetch(`${mcpUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  // An SSE answer carries the JSON-RPC message on its data line.
  const data = /^data: (.+)$/m.exec(text)?.[1] ?? text;
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(data) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** The initialize request of the 2025-11-25 protocol. */
export const initializeRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } },
};
