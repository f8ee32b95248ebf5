import { fileURLToPath } from 'node:url';
import {
  Client as Client2026,
  type ElicitRequest as ElicitRequest2026,
  type ElicitResult as ElicitResult2026,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2026 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { noCrontab } from './run-cli.js';

/** The built entry; the MCP e2e tests need `npx tsc -p tsconfig.json` (npm test builds first). */
export const builtEntry = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

export interface McpConnection {
  client: Client;
  /** Process id of the spawned server. */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Transport/protocol errors seen by the client: a non-JSON-RPC stdout line lands here. */
  protocolErrors: Error[];
  close(): Promise<void>;
}

export interface ConnectMcpOptions {
  env: Record<string, string>;
  args?: string[];
  /** Node arguments instead of `dist/bin.js mcp …args` (e.g. a script that starts the server with a test clock). */
  nodeArgs?: string[];
  /** Declares form elicitation and answers each request with this (a person in front of a host's form). */
  onElicit?: (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
}

/** The environment that points the client at a running sandbox. */
export function sandboxEnv(
  sandbox: { authUrl: string; apiUrl: string; salt: string; domain: string },
  credentialsDir: string,
): Record<string, string> {
  return {
    AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
    AGENT_MAILBOX_API_URL: sandbox.apiUrl,
    AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
    AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
    AGENT_MAILBOX_CREDENTIALS_DIR: credentialsDir,
  };
}

/** How both clients start the server: `node dist/bin.js mcp …args`, or the given node arguments. */
function serverProcess(options: {
  env: Record<string, string>;
  args?: string[] | undefined;
  nodeArgs?: string[] | undefined;
}) {
  return {
    command: process.execPath,
    args: options.nodeArgs ?? [builtEntry, 'mcp', ...(options.args ?? [])],
    // No test may reach the invoking user's crontab (see run-cli.ts).
    env: { AGENT_MAILBOX_CRONTAB: noCrontab, ...options.env },
    stderr: 'pipe' as const,
  };
}

/** Everything written to `stream` so far (the server's log). */
function captured(stream: NodeJS.EventEmitter | null): () => string {
  let text = '';
  stream?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return () => text;
}

/** Connects either SDK's client, collecting what it reports as protocol errors (a non-JSON-RPC stdout line lands there). */
async function connected<
  T extends { pid: number | null },
  C extends {
    onerror?: ((error: Error) => void) | undefined;
    connect(transport: T): Promise<void>;
    close(): Promise<void>;
  },
>(
  client: C,
  transport: T,
  stderr: () => string,
): Promise<{ client: C; pid: number; stderr: () => string; protocolErrors: Error[]; close: () => Promise<void> }> {
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error(`the server did not start:\n${stderr()}`);
  return { client, pid, stderr, protocolErrors, close: () => client.close() };
}

/** Spawns `node dist/bin.js mcp` over the SDK's StdioClientTransport and connects a Client. */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpConnection> {
  const transport = new StdioClientTransport(serverProcess(options));
  const stderr = captured(transport.stderr);
  const onElicit = options.onElicit;
  const client = new Client(
    { name: 'agent-mailbox-e2e', version: '0' },
    onElicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => onElicit(request.params));
  return connected(client, transport, stderr);
}

/** A connection through the MCP SDK's 2.x client, pinned to protocol revision 2026-07-28 (no initialize). */
export interface McpConnection2026 extends Omit<McpConnection, 'client'> {
  client: Client2026;
}

export interface ConnectMcp2026Options extends Omit<ConnectMcpOptions, 'onElicit'> {
  /** Declares form elicitation; the client answers each input request of an `input_required` result with this. */
  onElicit?: (request: ElicitRequest2026['params']) => ElicitResult2026 | Promise<ElicitResult2026>;
}

/** Spawns the built server like connectMcp, and connects the 2.x client in the 2026-07-28 era. */
export async function connectMcp2026(options: ConnectMcp2026Options): Promise<McpConnection2026> {
  const transport = new StdioClientTransport2026(serverProcess(options));
  const stderr = captured(transport.stderr);
  const onElicit = options.onElicit;
  const client = new Client2026(
    { name: 'agent-mailbox-e2e-2026', version: '0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      ...(onElicit ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (onElicit) client.setRequestHandler('elicitation/create', (request) => onElicit(request.params));
  return connected(client, transport, stderr);
}

/** Prints the server's stderr after any failed test of the calling file (it is the server's log). */
export function printStderrOnFailure(
  connections: () => readonly (Pick<McpConnection, 'pid' | 'stderr'> | undefined)[],
): void {
  afterEach((context) => {
    if (context.task.result?.state !== 'fail') return;
    for (const connection of connections()) {
      if (connection)
        process.stderr.write(`\n--- server stderr (pid ${connection.pid}) ---\n${connection.stderr()}\n---\n`);
    }
  });
}

const textContent = z.object({ content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })) });

/** The text blocks of a tool result, joined. */
export function resultText(result: unknown): string {
  return textContent
    .parse(result)
    .content.map((c) => c.text ?? '')
    .join('\n');
}

/** A tool result's structuredContent as a plain record. */
export function structured(result: unknown): Record<string, unknown> {
  return z.object({ structuredContent: z.record(z.string(), z.unknown()) }).parse(result).structuredContent;
}
