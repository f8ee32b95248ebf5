import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { AccountRecord } from '../auth/account-store.js';
import { sendJson } from '../auth/auth-http.js';
import type { AccountDirectory } from '../oauth/accounts/account-directory.js';
import type { AccessClaims } from '../oauth/grants/access-tokens.js';
import { callerCredentialOf } from './endpoint/caller-credential.js';
import { authInfoFor, CallerRefusal, verifyCaller, type HostedCaller } from './endpoint/hosted-caller.js';
import { jsonRpcErrorResponse, LegacySessionsEndpoint } from './endpoint/legacy-sessions-endpoint.js';
import { readBodyUpTo, webRequestOf, writeWebResponse } from './endpoint/node-web-bridge.js';
import { checkOrigin, corsHeadersFor, preflightHeadersFor } from './endpoint/origin-guard.js';
import {
  hostedResourceOf,
  mcpPath,
  protectedResourceMetadata,
  protectedResourcePath,
  resourceChallenge,
} from './endpoint/protected-resource.js';
import { buildHostedServer } from './tools/build-hosted-server.js';
import { hostedTools } from './tools/tool-table.js';

/** The hosted MCP server's settings (`SandboxOptions.hostedMcp`). */
export interface HostedMcpOptions {
  /** false: jmap_request is not offered (`--hosted-jmap off`); run_preset stays. */
  jmapRequest?: boolean;
  /** Deadline of each request a tool makes to the JMAP host, in milliseconds (default 20000). */
  jmapTimeoutMs?: number;
  /** Largest answer a tool reads from the JMAP host, in bytes (default 16 MiB). */
  maxJmapResponseBytes?: number;
  /** Largest MCP request body, in bytes (default 8 MiB: base64 attachments of 5 MiB fit). */
  maxRequestBytes?: number;
  /** Open transport sessions kept at most; the least recently used goes first (default 256). */
  maxSessions?: number;
}

/** What the hosted MCP server needs from the sandbox around it. */
export interface HostedMcpDeps {
  options: HostedMcpOptions;
  /** `{mcp_url}`: its `/mcp` is the resource tokens must be bound to. */
  mcpUrl(): string;
  authUrl(): string;
  apiUrl(): string;
  domain: string;
  /** Host names besides the loopback ones that pages may call from (`--allow-host`). */
  extraHosts: readonly string[];
  verifyAccessToken(token: string, isAccepted: (audience: string) => boolean): Promise<AccessClaims>;
  findByApiKey(apiKey: string): AccountRecord | undefined;
  directory: AccountDirectory;
  /** A capability JWT for one inbox, the same the proof-of-work path mints. */
  mintCapability(address: string): Promise<string>;
  log(line: string): void;
}

/** The hosted MCP server as an HTTP handler. */
export interface HostedMcpHost {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Open 2025-era transport sessions. */
  sessionCount(): number;
  close(): Promise<void>;
}

/**
 * The service's third host (spec §1, §2.4, §2.8, §4.4, §5 item 8): `{mcp_url}/mcp` over Streamable
 * HTTP on the MCP SDK's transports, and its protected-resource metadata. Every request's credential
 * is checked here before any transport sees it; tools reach the mail store over the JMAP host with
 * a capability minted per call.
 */
export function createHostedMcpHost(deps: HostedMcpDeps): HostedMcpHost {
  const maxRequestBytes = deps.options.maxRequestBytes ?? 8 * 1024 * 1024;
  const toolDeps = {
    directory: deps.directory,
    domain: deps.domain,
    mcpUrl: deps.mcpUrl,
    isJmapRequestEnabled: deps.options.jmapRequest ?? true,
    mailStore: {
      apiUrl: deps.apiUrl,
      mintCapability: deps.mintCapability,
      timeoutMs: deps.options.jmapTimeoutMs ?? 20_000,
      maxResponseBytes: deps.options.maxJmapResponseBytes ?? 16 * 1024 * 1024,
    },
  };
  const tools = hostedTools(toolDeps.isJmapRequestEnabled);
  const buildServer = () => buildHostedServer(tools, toolDeps, deps.log);
  const legacy = new LegacySessionsEndpoint(buildServer, {
    maxSessions: deps.options.maxSessions ?? 256,
    maxRequestBytes,
  });
  // The 2026-07-28 era has no sessions: each request stands alone, with the caller of that request.
  const modern = createMcpHandler(() => buildServer(), {
    legacy: 'reject',
    maxRequestBodySize: maxRequestBytes,
    onerror: (error) => deps.log(`sandbox hosted MCP: ${error.message}`),
  });
  const resource = () => hostedResourceOf(deps.mcpUrl());
  const checkDeps = {
    verifyAccessToken: deps.verifyAccessToken,
    resource: () => resource().resource,
    findByApiKey: deps.findByApiKey,
    directory: deps.directory,
  };

  const serveMcp = async (req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<void> => {
    let caller: HostedCaller;
    try {
      caller = await verifyCaller(checkDeps, callerCredentialOf(req.headers));
    } catch (error) {
      if (!(error instanceof CallerRefusal)) throw error;
      req.resume();
      const sentNothing = req.headers.authorization === undefined && req.headers['x-api-key'] === undefined;
      const challenge = resourceChallenge(
        resource().metadataUrl,
        sentNothing ? undefined : { code: error.code, description: error.description },
      );
      return sendJson(
        res,
        error.status,
        { error: error.code, error_description: error.description },
        { ...cors, 'www-authenticate': challenge },
      );
    }
    let parsedBody: unknown;
    if (req.method === 'POST') {
      const body = await readBodyUpTo(req, maxRequestBytes);
      if (body === undefined)
        return writeWebResponse(
          res,
          withHeaders(
            jsonRpcErrorResponse(
              413,
              -32600,
              `The request body is larger than ${maxRequestBytes / 1024 / 1024} MiB; send attachments of at most 5 MiB together.`,
            ),
            { ...cors, connection: 'close' },
          ),
        );
      try {
        parsedBody = JSON.parse(body.toString('utf8'));
      } catch {
        return writeWebResponse(
          res,
          withHeaders(jsonRpcErrorResponse(400, -32700, 'Parse error: the request body is not JSON.'), cors),
        );
      }
    }
    const request = webRequestOf(req, res, `http://${req.headers.host ?? '127.0.0.1'}`);
    const authInfo = authInfoFor(caller, resource().resource);
    const isLegacy = await isLegacyRequest(request, parsedBody, { maxRequestBodySize: maxRequestBytes });
    const response = isLegacy
      ? await legacy.handle(request, parsedBody, caller, authInfo)
      : await modern.fetch(request, { parsedBody, authInfo });
    await writeWebResponse(res, withHeaders(response, cors));
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://hosted.invalid').pathname;
    const origin = checkOrigin(req, deps.extraHosts);
    if (!origin.ok) {
      req.resume();
      return sendJson(res, 403, { error: 'invalid_request', error_description: origin.message });
    }
    const cors = corsHeadersFor(origin.origin);
    if (req.method === 'OPTIONS') {
      req.resume();
      res.writeHead(204, { ...preflightHeadersFor(origin.origin), 'content-length': '0' });
      return void res.end();
    }
    if (path === protectedResourcePath) {
      req.resume();
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendJson(
          res,
          405,
          { error: 'invalid_request', error_description: 'The metadata is read with GET.' },
          { ...cors, allow: 'GET' },
        );
      return sendJson(res, 200, protectedResourceMetadata(resource(), deps.authUrl()), cors);
    }
    if (path !== mcpPath) {
      req.resume();
      return sendJson(
        res,
        404,
        {
          error: 'not_found',
          error_description: `Nothing at ${path.slice(0, 100)}; the MCP endpoint is ${mcpPath} and its metadata ${protectedResourcePath}.`,
        },
        cors,
      );
    }
    await serveMcp(req, res, cors);
  };

  return {
    handle(req, res) {
      route(req, res).catch((error: unknown) => {
        deps.log(
          `sandbox hosted MCP: internal error on ${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`,
        );
        if (res.headersSent) return void res.destroy();
        req.resume();
        sendJson(res, 500, {
          error: 'server_error',
          error_description: 'The hosted MCP server failed unexpectedly; the sandbox log on stderr has the details.',
        });
      });
    },
    sessionCount: () => legacy.size,
    async close() {
      await legacy.close();
      await modern.close();
    },
  };
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
