import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { bundledAssets } from '../bundle-assets.js';
import { createAccountRegistry } from '../auth/create-account-registry.js';
import { resolveConfig, type ConfigInputs } from '../config.js';
import { createLogger } from '../log.js';
import { shellCommandFor } from '../render/shell-command.js';
import { operationsFor } from '../operations/index.js';
import { createMcpServer } from './server.js';
import { createResourceSources } from './resource-sources.js';

/**
 * `agent-mailbox mcp`: the stdio MCP server. stdout carries protocol messages only (a stray
 * write breaks the host's connection), every log line goes to stderr. It exits cleanly when the
 * host closes stdin or sends SIGTERM.
 */

export interface RunMcpServerOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Options of `agent-mailbox mcp`, declared in the operations table (src/operations/mcp.ts). */
  verbose?: boolean;
  toolDeadlineMs?: number;
  /** The entry file that started this process, for watch jobs; default: the tsc build's. */
  cliPath?: string;
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  /** Clock for token expiry and refresh-ahead (ms since the epoch); tests move it instead of waiting. */
  now?: () => number;
}

/** Hosts cut tool calls at ~60 s (Codex ~120 s); a PoW still running then answers "call again". */
export const defaultToolDeadlineMs = 50_000;

/** Runs the stdio MCP server until the host disconnects. */
export async function runMcpServer(options: RunMcpServerOptions): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const configInputs: ConfigInputs = { env: options.env, flags: options.verbose ? { debug: true } : {} };
  // A bad setting throws MailboxError invalid_input here, before stdout carries any protocol.
  const verbose = resolveConfig(configInputs).debug;
  // Quiet by default: hosts show a server's stderr as its log, and warnings are enough there.
  const log = createLogger(stderr, verbose ? 'debug' : 'warn', 'agent-mailbox mcp');
  const accounts = createAccountRegistry({ configInputs, log, refreshAhead: true, ...(options.now ? { now: options.now } : {}) });
  // Only the entries offered through this door: operator-only commands never become tools.
  const operations = operationsFor('mcp');
  // The built entry, as the CLI passes it (src/cli/main.ts): watch jobs run it with no PATH.
  const cliPath = options.cliPath ?? fileURLToPath(new URL('../bin.js', import.meta.url));
  const server = createMcpServer({
    operations,
    accounts,
    configInputs,
    log,
    // A host started this process in a directory of its choosing: the suggested command stays absolute.
    install: { nodePath: process.execPath, cliPath, shellCommand: shellCommandFor({ cliPath, env: options.env }) },
    workingDir: process.cwd(),
    version: await packageVersion(),
    deadlineMs: options.toolDeadlineMs ?? defaultToolDeadlineMs,
    resources: createResourceSources(operations),
  });

  const transport = new StdioServerTransport(stdin, stdout);
  const disconnected = new Promise<string>((resolve) => {
    stdin.once('end', () => resolve('stdin closed'));
    stdin.once('close', () => resolve('stdin closed'));
    transport.onclose = () => resolve('transport closed');
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  await server.connect(transport);
  log.info(`ready (${operations.length} tools, version ${await packageVersion()})`);

  const reason = await disconnected;
  log.info(`shutting down: ${reason}`);
  // Closing aborts every in-flight call (its PoW stops) and the registry stops refresh-ahead.
  await server.close().catch(() => undefined);
  accounts.close();
  // A registration that outlived its call keeps solving in the background; it must not keep a
  // host's orphaned server alive after the host left.
  setTimeout(() => process.exit(0), 2_000).unref();
}

let cachedVersion: string | undefined;

async function packageVersion(): Promise<string> {
  if (cachedVersion) return cachedVersion;
  // A bundle has no package.json beside it (the skill's script): the build wrote the version in.
  if (bundledAssets) return (cachedVersion = bundledAssets.version);
  const raw = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  cachedVersion = z.object({ version: z.string() }).parse(JSON.parse(raw)).version;
  return cachedVersion;
}
