import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MailboxError, inputRef, settingRef } from '../errors.js';
import { shellQuote } from '../render/shell-quote.js';
import { isLoopbackUrl, registeredSandbox, type RegisteredSandbox } from './loopback-endpoints.js';
import type { StoredCredentials } from './stored-credentials.js';

interface InboxOfCall {
  dir: string;
  credentials: Pick<StoredCredentials, 'inboxId' | 'inbox' | 'authUrl' | 'apiUrl'> | undefined;
}

/** The loopback port a refused connection was aimed at, from the socket error under the error's causes. */
function refusedLoopbackPort(error: MailboxError): number | undefined {
  if (error.code !== 'network') return undefined;
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    const socket = cause as NodeJS.ErrnoException & { address?: string; port?: number };
    if (socket.code !== 'ECONNREFUSED') continue;
    if (socket.address === undefined || socket.port === undefined) return undefined;
    const host = socket.address.includes(':') ? `[${socket.address}]` : socket.address;
    return isLoopbackUrl(`http://${host}`) ? socket.port : undefined;
  }
  return undefined;
}

function portOf(url: string | undefined): number | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
}

/** The command that starts the sandbox again where the stored URLs point. */
function restartCommand(dir: string, sandbox: RegisteredSandbox): { restart: string; knowsDataDir: boolean } {
  // The sandbox's own layout: it hands out <data dir>/credentials, beside its auth/ folder.
  const dataDir = basename(dir) === 'credentials' && existsSync(join(dirname(dir), 'auth')) ? dirname(dir) : undefined;
  const [authPort, apiPort] = [portOf(sandbox.authUrl), portOf(sandbox.apiUrl)];
  const restart = `agent-mailbox sandbox --data-dir ${dataDir === undefined ? '<its data dir>' : shellQuote(dataDir)}${authPort ? ` --auth-port ${authPort}` : ''}${apiPort ? ` --api-port ${apiPort}` : ''}`;
  return { restart, knowsDataDir: dataDir !== undefined };
}

/**
 * A connection refused on this machine: a local sandbox is not running. Names it and how to get it back when the inbox
 * was registered against it (`sandbox_not_running`), else adds the likely cause; any other error comes back unchanged.
 */
export function explainUnreachableSandbox(error: unknown, inbox: InboxOfCall): unknown {
  if (!(error instanceof MailboxError)) return error;
  const port = refusedLoopbackPort(error);
  if (port === undefined) return error;
  const sandbox = inbox.credentials ? registeredSandbox(inbox.credentials) : undefined;
  const matches = sandbox && (portOf(sandbox.authUrl) === port || portOf(sandbox.apiUrl) === port);
  if (!sandbox || !matches || !inbox.credentials) {
    // Only a guess: still the network error it was, with the likeliest cause named.
    return new MailboxError({
      code: 'network',
      message: `${error.message} Nothing listens on port ${port} of this machine: a local sandbox that is not running?`,
      hint: `Start the sandbox (agent-mailbox sandbox) and point the client at the URLs it prints, or check ${settingRef('authUrl')} and ${settingRef('apiUrl')}.`,
      details: { port },
      cause: error,
    });
  }
  const address = inbox.credentials.inbox ?? inbox.credentials.inboxId;
  const { restart, knowsDataDir } = restartCommand(inbox.dir, sandbox);
  const inMemory = knowsDataDir
    ? ''
    : " An in-memory sandbox's inboxes are gone with it: register a new one against a running sandbox.";
  return new MailboxError({
    code: 'sandbox_not_running',
    message: `The inbox ${address} in ${inbox.dir} was registered against a local sandbox (auth ${sandbox.authUrl ?? '?'}, JMAP ${sandbox.apiUrl ?? '?'}), which is not running: the connection to port ${port} was refused.`,
    hint: `Start it again with the same --data-dir (\`${restart}\` keeps the stored URLs right; with other ports, export the variables it prints), or use the ${inputRef('credentials_dir')} of another inbox.${inMemory}`,
    details: { credentialsDir: inbox.dir, sandbox },
    cause: error,
  });
}
