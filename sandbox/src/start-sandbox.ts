import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { liveScryptSalt } from './wire-constants.js';
import { AccountStore } from './auth/account-store.js';
import type { AuthStats } from './auth/auth-host-context.js';
import { createAuthHost, type AuthHost } from './auth/create-auth-host.js';
import { ensurePrivateDir } from './auth/json-file-store.js';
import { SandboxError } from './auth/sandbox-error.js';
import { defaultRateLimit, type RateLimit } from './auth/rate-limiter.js';
import { loadOrCreateSigningKey } from './auth/signing-key.js';
import { defaultTokenLifetimes, TokenService } from './auth/token-service.js';
import type { BackendContext, MailBackend, OutboxEntry } from './mail-backend.js';
import { guardHostHeader } from './host-header-guard.js';
import type { HostedMcpOptions } from './hosted-mcp/create-hosted-mcp-host.js';
import { attachOAuth, type SandboxOAuthInfo, type SandboxOAuthOptions } from './oauth/sandbox-oauth.js';
import type { DnsRecords } from './mail-auth/dns-records.js';
import { createMailAuthority } from './mail-auth/mail-authority.js';
import { startSmtpListener, type SmtpListener } from './smtp-listener.js';
import { createDrillService } from './drill/drill-service.js';

export type SandboxBackendKind = 'embedded' | 'cyrus';

export interface SandboxOptions {
  authPort?: number;
  apiPort?: number;
  smtpPort?: number;
  /** Leading zero bits per challenge; 7 keeps a demo sign-up to a few seconds on 2 cores. */
  difficulty?: number;
  salt?: string;
  domain?: string;
  /** Keeps the signing key, accounts and mail across restarts; in memory when absent. */
  dataDir?: string;
  challengeTtlSeconds?: number;
  sessionTtlSeconds?: number;
  capabilityTtlSeconds?: number;
  backend?: SandboxBackendKind;
  /** Host names besides 127.0.0.1, localhost and [::1] that the auth and JMAP hosts answer for. */
  allowedHosts?: string[];
  /** Token bucket on POST /api/v1/challenge; `false` turns it off. */
  rateLimit?: RateLimit | false;
  log?: (line: string) => void;
  /** Clock of token expiry and the challenge rate limit, in milliseconds since the epoch (tests move it). */
  now?: () => number;
  /** The world's DNS as the sandbox sees it (`--dns-file`); without it every outside name is unknown. */
  dns?: DnsRecords;
  /** The authserv-id of the Authentication-Results the sandbox writes; its domain by default. */
  authservId?: string;
  /** Replaces the backend switch (tests of the auth host alone use a tiny fake store). */
  createBackend?: (ctx: BackendContext) => Promise<MailBackend>;
  /** The OAuth authorization server's settings: token lifetime, auto-approved people, test switches. */
  oauth?: SandboxOAuthOptions;
  /** Hosted MCP server port (0 or absent: a free port). */
  mcpPort?: number;
  /**
   * The public `{mcp_url}` of the hosted MCP server (behind a proxy); by default its own listener's
   * URL. Authorization accepts `{mcp_url}/mcp` as a resource.
   */
  mcpUrl?: string;
  /** The hosted MCP server's settings: jmap_request on or off, deadlines and caps. */
  hostedMcp?: HostedMcpOptions;
}

export interface RunningSandbox {
  authUrl: string;
  apiUrl: string;
  /** `{mcp_url}`: the hosted MCP server is at `{mcp_url}/mcp`. */
  mcpUrl: string;
  smtpPort: number;
  difficulty: number;
  salt: string;
  domain: string;
  backend: SandboxBackendKind;
  oauth: SandboxOAuthInfo;
  authservId: string;
  stats(): AuthStats;
  outbox(): Promise<OutboxEntry[]>;
  close(): Promise<void>;
}

/** `.test` is reserved for testing (RFC 2606 §2), so sandbox mail can never reach a real domain. */
export const defaultSandboxDomain = 'agent-mailbox.test';
export const defaultSandboxDifficulty = 7;

/** The one backend switch: the embedded JMAP store, or Cyrus IMAP behind a JMAP gateway. */
async function createMailBackend(kind: SandboxBackendKind, ctx: BackendContext): Promise<MailBackend> {
  if (kind === 'embedded') {
    const { createEmbeddedBackend } = await import('./embedded/create-embedded-backend.js');
    return createEmbeddedBackend(ctx);
  }
  // Loaded only when asked for: the embedded store never pays for the Cyrus gateway's modules.
  const { createCyrusBackend } = await import('./cyrus/create-cyrus-backend.js');
  return createCyrusBackend(ctx);
}

/** Starts the auth host, the JMAP host and the SMTP listener on 127.0.0.1 (port 0 unless told). */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const log = options.log ?? (() => {});
  const difficulty = options.difficulty ?? defaultSandboxDifficulty;
  const salt = options.salt ?? liveScryptSalt;
  const domain = (options.domain ?? defaultSandboxDomain).toLowerCase();
  const kind = options.backend ?? 'embedded';
  const authservId = (options.authservId ?? domain).toLowerCase();
  checkOptions(difficulty, domain, authservId);
  const authDir = options.dataDir === undefined ? undefined : join(options.dataDir, 'auth');
  if (options.dataDir !== undefined) await ensurePrivateDir(options.dataDir);

  const key = await loadOrCreateSigningKey(authDir);
  const authority = await createMailAuthority({
    domain,
    authservId,
    ...(options.dns ? { dns: options.dns } : {}),
    ...(authDir === undefined ? {} : { keyDir: authDir }),
    ...(options.now ? { now: options.now } : {}),
  });
  const accounts = await AccountStore.open(authDir);
  const cleanups: Array<() => Promise<void>> = [];
  const closeAll = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse())
      await cleanup().catch((error: unknown) => log(`sandbox: close failed: ${String(error)}`));
  };

  try {
    let apiUrl = '';
    let authHost: AuthHost | undefined;
    const ctx: BackendContext = {
      domain,
      verifyCapability: (bearer) => {
        if (!authHost) throw new Error('the auth host is not ready yet');
        return authHost.verifyCapability(bearer);
      },
      publicApiUrl: () => apiUrl,
      ownMail: authority,
      log,
      ...(options.dataDir === undefined ? {} : { dataDir: join(options.dataDir, 'mail') }),
    };
    const backend = await (options.createBackend ?? ((c) => createMailBackend(kind, c)))(ctx);
    cleanups.push(() => backend.close());

    let smtpPort = 0;
    const drillCapabilities = (address: string): Promise<string> =>
      new TokenService(key, lifetimes, options.now).issueCapability(address);
    const drill = createDrillService({
      domain,
      smtpPort: () => smtpPort,
      apiUrl: () => apiUrl,
      publishDns: (records) => authority.publish(records),
      outbox: () => backend.outbox(),
      mintCapability: drillCapabilities,
    });
    cleanups.push(() => drill.close());
    const lifetimes = {
      challengeSeconds: options.challengeTtlSeconds ?? defaultTokenLifetimes.challengeSeconds,
      sessionSeconds: options.sessionTtlSeconds ?? defaultTokenLifetimes.sessionSeconds,
      capabilitySeconds: options.capabilityTtlSeconds ?? defaultTokenLifetimes.capabilitySeconds,
    };
    let authUrl = '';
    let mcpUrl = options.mcpUrl?.replace(/\/+$/, '') ?? '';
    const oauth = await attachOAuth({
      options: options.oauth ?? {},
      ...(authDir === undefined ? {} : { dataDir: join(authDir, 'oauth') }),
      domain,
      authUrl: () => authUrl,
      apiUrl: () => apiUrl,
      mcpUrl: () => (mcpUrl === '' ? undefined : mcpUrl),
      accounts,
      powKey: key,
      lifetimes,
      createInbox: (address) => backend.createInbox(address),
      now: options.now ?? Date.now,
      log,
    });
    const host = createAuthHost({
      key,
      accounts,
      lifetimes,
      difficulty,
      salt,
      domain,
      rateLimit: options.rateLimit ?? defaultRateLimit,
      createInbox: (address) => oauth.createSignedUpInbox(address).then(() => drill.noteInbox(address)),
      log,
      now: options.now,
    });
    authHost = host;

    const extraHosts = options.allowedHosts ?? [];
    // The guards read the port on each request, once the server listens.
    const authHandler = oauth.frontAuthHost((req, res) => host.handle(req, res));
    const authServer: Server = await listenHttp(
      options.authPort ?? 0,
      guardHostHeader(() => portOf(authServer), extraHosts, authHandler),
    );
    cleanups.push(() => closeHttp(authServer));
    const apiHandler = oauth.frontJmapHost((req, res) => drill.handle(req, res) || backend.handle(req, res));
    const apiServer: Server = await listenHttp(
      options.apiPort ?? 0,
      guardHostHeader(() => portOf(apiServer), extraHosts, apiHandler),
    );
    cleanups.push(() => closeHttp(apiServer));
    apiUrl = `http://127.0.0.1:${(apiServer.address() as AddressInfo).port}`;
    authUrl = `http://127.0.0.1:${(authServer.address() as AddressInfo).port}`;

    // Loaded with the sandbox, not with the client's CLI: the MCP SDK's server stays out of other commands.
    const { createHostedMcpHost } = await import('./hosted-mcp/create-hosted-mcp-host.js');
    const capabilities = new TokenService(key, lifetimes, options.now);
    const hosted = createHostedMcpHost({
      options: options.hostedMcp ?? {},
      mcpUrl: () => mcpUrl,
      authUrl: () => authUrl,
      apiUrl: () => apiUrl,
      domain,
      extraHosts,
      verifyAccessToken: oauth.host.verifyAccessToken,
      findByApiKey: (apiKey) => accounts.findByApiKey(apiKey),
      directory: oauth.host.directory,
      mintCapability: (address) => capabilities.issueCapability(address),
      log,
    });
    const mcpServer: Server = await listenHttp(
      options.mcpPort ?? 0,
      guardHostHeader(() => portOf(mcpServer), extraHosts, hosted.handle),
    );
    cleanups.push(() => closeHttp(mcpServer));
    // Runs before the listener closes (clean-ups run newest first): sessions end, SSE streams with them.
    cleanups.push(() => hosted.close());
    if (mcpUrl === '') mcpUrl = `http://127.0.0.1:${portOf(mcpServer)}`;

    const smtp: SmtpListener = await startSmtpListener({
      port: options.smtpPort ?? 0,
      domain,
      // A person's inboxes may sit on a custom domain: the directory knows every inbox by address.
      isInbox: (address) => accounts.hasAddress(address) || oauth.host.directory.inboxAt(address) !== undefined,
      deliver: (raw, envelope) => backend.deliverInbound(raw, envelope),
      authority,
      log,
    });
    cleanups.push(() => smtp.close());
    smtpPort = smtp.port;
    log(
      `sandbox: auth ${authUrl}, JMAP ${apiUrl}, MCP ${mcpUrl}/mcp, SMTP 127.0.0.1:${smtp.port}, backend ${backend.kind}, difficulty ${difficulty}`,
    );

    let closing: Promise<void> | undefined;
    return {
      authUrl,
      apiUrl,
      mcpUrl,
      smtpPort: smtp.port,
      difficulty,
      salt,
      domain,
      backend: backend.kind,
      oauth: oauth.info(),
      authservId,
      stats: () => host.stats(),
      outbox: () => backend.outbox(),
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

const domainPattern = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

function checkOptions(difficulty: number, domain: string, authservId: string): void {
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > 32) {
    throw new SandboxError(
      `Difficulty ${difficulty} is out of range.`,
      'Pass a whole number of leading zero bits from 0 to 32 (7 is a few seconds on 2 cores).',
    );
  }
  if (!domainPattern.test(domain)) {
    throw new SandboxError(
      `"${domain}" is not a domain name.`,
      'Pass a domain such as agent-mailbox.test (a reserved test domain is safest).',
    );
  }
  if (!domainPattern.test(authservId)) {
    throw new SandboxError(
      `"${authservId}" is not an authserv-id.`,
      'Pass the host name the service signs its verdicts with, such as mx.agent-mailbox.test (RFC 8601 §2.5); the default is the sandbox domain.',
    );
  }
}

function listenHttp(port: number, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Idle keep-alive sockets (fetch keeps them) would otherwise hold close() open.
    server.closeAllConnections();
  });
}
