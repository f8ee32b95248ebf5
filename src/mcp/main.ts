import { fileURLToPath } from 'node:url';
import type { JSONRPCMessage, ProtocolEra, Transport } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { AccountRegistry } from '../auth/account-registry.js';
import { resolveConfig, type ConfigInputs } from '../config.js';
import { isRecord } from '../is-record.js';
import { createLogger } from '../log.js';
import { packageVersion } from '../package-root.js';
import { shellCommandFor } from '../render/shell-command.js';
import { loadHandlers } from '../operations/handlers/load.js';
import { operationsFor, type AnyOperation } from '../operations/index.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { createResourceSources } from './resources.js';

/** stdout carries protocol messages only (a stray write breaks the host's connection); logs go to stderr. */

export interface RunMcpServerOptions {
  env: Readonly<Record<string, string | undefined>>;
  verbose?: boolean;
  toolDeadlineMs?: number;
  /** Hosts that pass no environment rely on the setting flags (--sandbox, --auth-url, …). */
  configFlags?: ConfigInputs['flags'];
  /** The entry file that started this process, for watch jobs; default: the tsc build's. */
  cliPath?: string;
  /** Clock for token expiry and refresh-ahead (ms since the epoch); tests move it instead of waiting. */
  now?: () => number;
  /** Tools beside the table's, for tests; only code can pass them, no flag, setting or tool call. */
  extraOperations?: readonly AnyOperation[];
}

/**
 * Every message the server sends passes here. The handlers load once the host has gone quiet after
 * the start (initialize, tools/list), so neither waits for them and the first tool call, usually
 * seconds later, finds them loaded; a call that comes sooner loads them itself (the same import).
 * "Resource not found" is -32002 in MCP 2025-11-25 and -32602 with the URI in `data` in 2026-07-28
 * (SEP-2164); the SDK answers -32602 in both eras, so a 2025-era answer is rewritten as it leaves.
 */
function onEachSend<T extends Transport>(wire: T, isLegacyEra: () => boolean, warm: () => void): T {
  const send = wire.send.bind(wire);
  let timer: NodeJS.Timeout | undefined;
  let warmed = false;
  wire.send = (message, sendOptions) => {
    if (!warmed) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        warmed = true;
        warm();
      }, warmUpAfterIdleMs).unref();
    }
    return send(isLegacyEra() ? withLegacyCode(message) : message, sendOptions);
  };
  return wire;
}

const warmUpAfterIdleMs = 1_000;

/** Hosts cut tool calls at ~60 s (Codex ~120 s); a PoW still running then answers "call again". */
export const defaultToolDeadlineMs = 50_000;

export async function runMcpServer(options: RunMcpServerOptions): Promise<void> {
  const { stdin, stdout, stderr } = process;
  const configInputs: ConfigInputs = {
    env: options.env,
    flags: { ...options.configFlags, ...(options.verbose ? { debug: true } : {}) },
  };
  // A bad setting throws MailboxError invalid_input here, before stdout carries any protocol.
  const verbose = resolveConfig(configInputs).debug;
  // Quiet by default: hosts show a server's stderr as its log, and warnings are enough there.
  const log = createLogger(stderr, verbose ? 'debug' : 'warn', 'agent-mailbox mcp');
  // Built by the first tool call, after the import so concurrent first calls share one; never by tools/list.
  let registry: AccountRegistry | undefined;
  const accounts = async (): Promise<AccountRegistry> => {
    const { createAccountRegistry } = await loadHandlers();
    return (registry ??= createAccountRegistry({
      configInputs,
      log,
      refreshAhead: true,
      ...(options.now ? { now: options.now } : {}),
    }));
  };
  const operations = [...operationsFor('mcp'), ...(options.extraOperations ?? [])];
  // The built entry, as the CLI passes it (src/cli/main.ts): watch jobs run it with no PATH.
  const cliPath = options.cliPath ?? fileURLToPath(new URL('../bin.js', import.meta.url));
  const serverOptions: McpServerOptions = {
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
  };

  // Both protocol eras: the opening message decides (initialize: 2025-11-25, else 2026-07-28) and the
  // connection keeps it. The factory runs once per connection, plus once for a probe it may discard.
  let era: ProtocolEra | undefined;
  const wire = onEachSend(
    new StdioServerTransport(stdin, stdout),
    () => era === 'legacy',
    () => void loadHandlers().catch(() => undefined),
  );
  const disconnected = new Promise<string>((resolve) => {
    // The entry owns the transport's callbacks; its close (stdin ended, stdout broke) is seen here.
    const close = wire.close.bind(wire);
    wire.close = () => close().finally(() => resolve('transport closed'));
    stdin.once('end', () => resolve('stdin closed'));
    stdin.once('close', () => resolve('stdin closed'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const connection = serveStdio(
    (construction) => {
      era = construction.era;
      log.debug(`serving the ${construction.era === 'modern' ? '2026-07-28' : '2025-era'} protocol`);
      return createMcpServer({ ...serverOptions, era: construction.era });
    },
    { transport: wire, onerror: (error) => log.debug(`protocol: ${error.message}`) },
  );
  log.info(`ready (${operations.length} tools, version ${serverOptions.version})`);

  const reason = await disconnected;
  log.info(`shutting down: ${reason}`);
  // Closing aborts every in-flight call (its PoW stops) and the registry stops refresh-ahead.
  await connection.close().catch(() => undefined);
  registry?.close();
  // A registration still solving in the background must not keep an orphaned server alive.
  setTimeout(() => process.exit(0), 2_000).unref();
}

/** An error of code -32602 whose `data` is exactly `{ uri }` is the SDK's ResourceNotFoundError, nothing else. */
function withLegacyCode(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || message.error.code !== -32602) return message;
  const data: unknown = message.error.data;
  const isNotFound = isRecord(data) && Object.keys(data).length === 1 && typeof data.uri === 'string';
  return isNotFound ? { ...message, error: { ...message.error, code: -32002 } } : message;
}

// For start-mailbox.ts's report of a failed start; imports of their own would be more entries to split chunks around.
export { toMailboxError } from '../errors.js';
export { renderError } from '../render/render-error.js';
