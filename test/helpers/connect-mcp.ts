import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
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

/** Spawns `node dist/bin.js mcp` over the SDK's StdioClientTransport and connects a Client. */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: options.nodeArgs ?? [builtEntry, 'mcp', ...(options.args ?? [])],
    // No test may reach the invoking user's crontab (see run-cli.ts).
    env: { AGENT_MAILBOX_CRONTAB: noCrontab, ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'agent-mailbox-e2e', version: '0' });
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error(`the server did not start:\n${stderr}`);
  return { client, pid, stderr: () => stderr, protocolErrors, close: () => client.close() };
}

/** Prints the server's stderr after any failed test of the calling file (it is the server's log). */
export function printStderrOnFailure(connections: () => readonly (McpConnection | undefined)[]): void {
  afterEach((context) => {
    if (context.task.result?.state !== 'fail') return;
    for (const connection of connections()) {
      if (connection) process.stderr.write(`\n--- server stderr (pid ${connection.pid}) ---\n${connection.stderr()}\n---\n`);
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
