import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { SandboxError } from './auth/sandbox-error.js';
import { authPaths, sandboxSettingsFile, sandboxSettingsFormat } from './wire-constants.js';
import { loadDnsFile } from './mail-auth/dns-file.js';
import type { DnsRecords } from './mail-auth/dns-records.js';
import type { SandboxCommandOptions } from './sandbox-command-input.js';
import { startSandbox, type RunningSandbox } from './start-sandbox.js';

export interface SandboxCommandIo {
  stdout: Writable;
  stderr: Writable;
  signal: AbortSignal;
}

/**
 * The client's settings that point it at this sandbox (names as declared in src/config.ts),
 * with a credentials directory of the sandbox's own: a client that followed the banner must
 * never store a sandbox inbox where the operator's real one lives.
 */
export function sandboxClientEnv(sandbox: RunningSandbox, credentialsDir?: string): Record<string, string> {
  return {
    AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
    AGENT_MAILBOX_API_URL: sandbox.apiUrl,
    AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
    AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
    AGENT_MAILBOX_AUTHSERV_ID: sandbox.authservId,
    // Without one, each command names its own directory; the default one is refused for a sandbox.
    ...(credentialsDir === undefined ? {} : { AGENT_MAILBOX_CREDENTIALS_DIR: credentialsDir }),
  };
}

/** Where the client's files for this run go: the credentials directory and client.env, and what to remove on stop. */
interface ClientFiles {
  credentialsDir: string;
  envFile: string;
  /** sandbox.json: what `--sandbox <folder>` reads (format in src/wire-constants.ts). */
  settingsFile: string;
  /** The folder holding them: what `--sandbox` names. */
  folder: string;
  /** A temp folder of an in-memory sandbox, removed with it. */
  removeOnStop?: string;
}

/**
 * With --data-dir the client's credentials live beside the sandbox's own data and last as long as
 * its inboxes do. An in-memory sandbox's inboxes die with the process, so its credentials go to a
 * temp folder removed on stop: kept anywhere else they would only point at an inbox that no longer
 * exists.
 */
async function clientFilesFor(dataDir: string | undefined): Promise<ClientFiles> {
  const files = (folder: string): ClientFiles => ({
    credentialsDir: join(folder, 'credentials'),
    envFile: join(folder, 'client.env'),
    settingsFile: join(folder, sandboxSettingsFile),
    folder,
  });
  if (dataDir !== undefined) return files(resolve(dataDir));
  const folder = await mkdtemp(join(tmpdir(), 'agent-mailbox-sandbox-'));
  return { ...files(folder), removeOnStop: folder };
}

/** sandbox.json: the client's settings in a versioned JSON file, for hosts that pass no environment. */
function settingsFileText(sandbox: RunningSandbox, client: ClientFiles): string {
  const { authUrl, apiUrl, mcpUrl, smtpPort, salt, domain, authservId } = sandbox;
  return `${JSON.stringify({ format: sandboxSettingsFormat, authUrl, apiUrl, scryptSalt: salt, inboxDomain: domain, authservId, credentialsDir: client.credentialsDir, mcpUrl, smtpPort }, null, 2)}\n`;
}

/** The command a host starts, in each host's own form: `--sandbox` carries every setting. */
export function hostReadyLines(folder: string): string[] {
  const dir = shWord(folder);
  return [
    `  shell       agent-mailbox register --sandbox ${dir} --username my-agent-01 --watch on-demand`,
    `  Claude Code claude mcp add agent-mailbox-sandbox -- agent-mailbox mcp --sandbox ${dir}`,
    `  Codex       codex mcp add agent-mailbox-sandbox -- agent-mailbox mcp --sandbox ${dir}`,
    `  Gemini CLI  gemini mcp add agent-mailbox-sandbox agent-mailbox mcp --sandbox ${dir}`,
    `  any host    command "agent-mailbox", args ["mcp", "--sandbox", ${JSON.stringify(folder)}]`,
  ];
}

/** One POSIX sh word (the sandbox shares no code with the client, so not the client's quoter). */
function shWord(text: string): string {
  return /^[A-Za-z0-9_./:@=+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** client.env: the variables as `export` lines, for `. client.env` in the shell that runs the agent. */
function clientEnvText(env: Record<string, string>, smtpPort: number, folder: string): string {
  const exports = Object.entries(env).map(([name, value]) => `export ${name}=${shWord(value)}`);
  return [
    '# agent-mailbox sandbox: the client settings that point at it (rewritten at each start).',
    "# Hosts that start servers without your shell's environment (Codex, Claude Desktop) need",
    '# the argument form instead, which carries the same settings:',
    ...hostReadyLines(folder).map((line) => `#${line}`),
    ...exports,
    // Not a client setting: where mail from outside goes in (the README's sandbox recipe uses it).
    `SANDBOX_SMTP_PORT=${smtpPort}`,
    '',
  ].join('\n');
}

type PortName = 'authPort' | 'apiPort' | 'smtpPort' | 'mcpPort';
const portFlags: Record<PortName, string> = {
  authPort: '--auth-port',
  apiPort: '--api-port',
  smtpPort: '--smtp-port',
  mcpPort: '--mcp-port',
};

/**
 * The ports of the last start with this data directory (its sandbox.json), so that every host
 * configuration written for it keeps working across restarts. None when there is no usable file.
 */
async function previousPorts(dataDir: string | undefined): Promise<Partial<Record<PortName, number>>> {
  if (dataDir === undefined) return {};
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(await readFile(join(resolve(dataDir), sandboxSettingsFile), 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
  if (record.format !== sandboxSettingsFormat) return {};
  const portOfUrl = (url: unknown): number | undefined => {
    try {
      const port = typeof url === 'string' ? Number(new URL(url).port) : NaN;
      return Number.isInteger(port) && port > 0 ? port : undefined;
    } catch {
      return undefined;
    }
  };
  const smtp =
    typeof record.smtpPort === 'number' && Number.isInteger(record.smtpPort) && record.smtpPort > 0
      ? record.smtpPort
      : undefined;
  const found: Partial<Record<PortName, number | undefined>> = {
    authPort: portOfUrl(record.authUrl),
    apiPort: portOfUrl(record.apiUrl),
    mcpPort: portOfUrl(record.mcpUrl),
    smtpPort: smtp,
  };
  return Object.fromEntries(Object.entries(found).filter(([, port]) => port !== undefined)) as Partial<
    Record<PortName, number>
  >;
}

/** A port of the last start that something else holds now: which one, and the two ways on. */
function takenPortMessage(
  error: unknown,
  kept: Partial<Record<PortName, number>>,
  dataDir: string | undefined,
): { message: string; hint: string } | undefined {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') return undefined;
  const port = (error as { port?: number }).port;
  const name = (Object.keys(kept) as PortName[]).find((key) => kept[key] === port);
  if (name === undefined || dataDir === undefined) return undefined;
  const flag = portFlags[name];
  return {
    message: `port ${port} is taken: the sandbox kept it for ${flag} from its last start with --data-dir ${resolve(dataDir)}, and another program listens there now.`,
    hint: `Stop the program on port ${port} (e.g. \`ss -ltnp 'sport = :${port}'\` names it), or choose another with ${flag} <port> (${flag} 0: any free port; hosts configured with the old port must then be updated, while --sandbox users need nothing).`,
  };
}

/** `agent-mailbox sandbox`: runs the sandbox until `io.signal` aborts; 0 on a clean stop, 1 if it cannot start, 2 for a bad --dns-file. */
export async function runSandboxCommand(opts: SandboxCommandOptions, io: SandboxCommandIo): Promise<number> {
  let dns: DnsRecords | undefined;
  try {
    if (opts.dnsFile !== undefined) dns = await loadDnsFile(opts.dnsFile);
  } catch (error) {
    const hint = error instanceof SandboxError ? error.hint : '';
    io.stderr.write(`agent-mailbox sandbox: ${error instanceof Error ? error.message : String(error)}\n${hint}\n`);
    return 2;
  }
  let sandbox: RunningSandbox;
  // A port given on the command line wins; 0 asks for any free one.
  const kept = Object.fromEntries(
    Object.entries(await previousPorts(opts.dataDir)).filter(([name]) => opts[name as PortName] === undefined),
  ) as Partial<Record<PortName, number>>;
  const ports = {
    ...kept,
    ...Object.fromEntries(
      (Object.keys(portFlags) as PortName[])
        .filter((name) => opts[name] !== undefined)
        .map((name) => [name, opts[name]]),
    ),
  };
  try {
    sandbox = await startSandbox({
      ...ports,
      ...(opts.hostedJmap === undefined ? {} : { hostedMcp: { jmapRequest: opts.hostedJmap } }),
      ...(opts.difficulty === undefined ? {} : { difficulty: opts.difficulty }),
      ...(opts.domain === undefined ? {} : { domain: opts.domain }),
      ...(opts.dataDir === undefined ? {} : { dataDir: opts.dataDir }),
      ...(opts.backend === undefined ? {} : { backend: opts.backend }),
      ...(opts.sessionTtl === undefined ? {} : { sessionTtlSeconds: opts.sessionTtl }),
      ...(opts.capabilityTtl === undefined ? {} : { capabilityTtlSeconds: opts.capabilityTtl }),
      ...(opts.allowHost === undefined
        ? {}
        : {
            allowedHosts: opts.allowHost
              .split(',')
              .map((name) => name.trim())
              .filter(Boolean),
          }),
      oauth: {
        ...(opts.oauthAutoApprove === undefined ? {} : { autoApprove: opts.oauthAutoApprove }),
        ...(opts.oauthAccessTtl === undefined ? {} : { accessTokenSeconds: opts.oauthAccessTtl }),
      },
      ...(dns === undefined ? {} : { dns }),
      ...(opts.authservId === undefined ? {} : { authservId: opts.authservId }),
      log: (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    const taken = takenPortMessage(error, kept, opts.dataDir);
    const message = taken?.message ?? (error instanceof Error ? error.message : String(error));
    const hint =
      taken?.hint ??
      (error instanceof SandboxError
        ? error.hint
        : 'Check that the ports are free and the data directory is writable; the error above says which.');
    io.stderr.write(`agent-mailbox sandbox: ${message}\n${hint}\n`);
    return 1;
  }

  let client: ClientFiles | undefined;
  try {
    client = await clientFilesFor(opts.dataDir);
    const env = sandboxClientEnv(sandbox, client.credentialsDir);
    await writeFile(client.settingsFile, settingsFileText(sandbox, client), { mode: 0o600 });
    await writeFile(client.envFile, clientEnvText(env, sandbox.smtpPort, client.folder), { mode: 0o600 });
    if (opts.json) {
      const { authUrl, apiUrl, mcpUrl, smtpPort, difficulty, salt, domain, backend, authservId, oauth } = sandbox;
      const { credentialsDir, envFile, settingsFile } = client;
      io.stdout.write(
        `${JSON.stringify({ authUrl, apiUrl, mcpUrl, smtpPort, difficulty, salt, domain, backend, authservId, oauth, credentialsDir, envFile, settingsFile, env })}\n`,
      );
    } else {
      io.stdout.write(renderBanner(sandbox, env, opts.dataDir, client, opts.hostedJmap ?? true));
    }
    if (!io.signal.aborted) {
      await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }));
    }
  } catch (error) {
    io.stderr.write(
      `agent-mailbox sandbox: ${error instanceof Error ? error.message : String(error)}\nCheck that the data directory (or the temp folder) is writable.\n`,
    );
    return 1;
  } finally {
    await sandbox.close();
    if (client?.removeOnStop) await rm(client.removeOnStop, { recursive: true, force: true });
  }
  if (!opts.json) io.stdout.write('Sandbox stopped.\n');
  return 0;
}

function oauthLines(oauth: RunningSandbox['oauth']): string[] {
  const people = oauth.autoApproved.map(
    (entry) =>
      `  auto-approve ${entry.person}: ${entry.inboxes.map((inbox) => `${inbox.address} (${inbox.accountId})`).join(', ')}`,
  );
  return [
    "OAuth (a person's account, its inboxes chosen per request):",
    `  metadata    ${oauth.metadataUrl}`,
    `  resource    ${oauth.jmapResource}   (JMAP; send X-Service-Account-Id with the access token)`,
    `  tokens      access ${oauth.accessTokenSeconds} s, refresh 90 days sliding; consent page, or auto-approve:`,
    ...(people.length > 0
      ? people
      : ['  (no --oauth-auto-approve: authorization shows the sign-in and consent pages)']),
    `  grants      ${oauth.issuer}/oauth/grants   (a person's connected applications, with Revoke)`,
  ];
}

function renderBanner(
  sandbox: RunningSandbox,
  env: Record<string, string>,
  dataDir: string | undefined,
  client: ClientFiles,
  hostedJmap: boolean,
): string {
  const exports = Object.entries(env).map(([name, value]) => `  export ${name}=${shWord(value)}`);
  return [
    'Agent Mailbox sandbox is running (loopback only).',
    '',
    `  auth host   ${sandbox.authUrl}   (POST ${authPaths.challenge}, ${authPaths.session}, ${authPaths.capability})`,
    `  JMAP host   ${sandbox.apiUrl}   (GET /.well-known/jmap)`,
    `  MCP host    ${sandbox.mcpUrl}/mcp   (hosted MCP, Streamable HTTP: OAuth or an inbox apiKey; jmap_request ${hostedJmap ? 'on' : 'off'})`,
    `  SMTP        127.0.0.1:${sandbox.smtpPort}   (mail in for *@${sandbox.domain}; SPF, DKIM and DMARC results in Authentication-Results: ${sandbox.authservId})`,
    `  backend     ${sandbox.backend}; proof-of-work difficulty ${sandbox.difficulty}`,
    `  storage     ${dataDir === undefined ? 'in memory (gone when it stops; use --data-dir to keep it)' : resolve(dataDir)}`,
    `  client      credentials in ${client.credentialsDir}${client.removeOnStop ? ' (removed when it stops)' : ''}; never your real credentials directory`,
    '',
    ...oauthLines(sandbox.oauth),
    '',
    `Point a client at it: --sandbox carries every setting (hosts may pass no environment)${client.removeOnStop ? '; with --data-dir the folder and its ports outlast a restart' : ''}:`,
    ...hostReadyLines(client.folder),
    '',
    'Or, in a shell, load the same settings as variables (they are in the file):',
    `  . ${shWord(client.envFile)}`,
    ...exports,
    '',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}
