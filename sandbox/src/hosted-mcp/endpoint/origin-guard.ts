import type { IncomingMessage } from 'node:http';
import { localhostAllowedOrigins, validateOriginHeader } from '@modelcontextprotocol/server';

/** The verdict on a request's Origin header. */
export type OriginVerdict = { ok: true; origin: string | undefined } | { ok: false; message: string };

/**
 * Checks the Origin header, as the Streamable HTTP transport's documentation asks beside the Host
 * check (DNS rebinding): a browser page may call only from a loopback origin or a host name the
 * operator allowed. Requests without Origin (every non-browser client) pass.
 */
export function checkOrigin(req: IncomingMessage, extraHosts: readonly string[]): OriginVerdict {
  const header = req.headers.origin;
  const verdict = validateOriginHeader(header, [
    ...localhostAllowedOrigins(),
    ...extraHosts.map((name) => name.toLowerCase()),
  ]);
  if (verdict.ok) return { ok: true, origin: verdict.origin };
  return {
    ok: false,
    message: `This hosted MCP server does not answer pages from the origin ${String(header).slice(0, 100)}; start the sandbox with --allow-host <name> to allow that host.`,
  };
}

/** CORS headers for an allowed browser origin, so a browser-based MCP client can read the answer and its session id. */
export function corsHeadersFor(origin: string | undefined): Record<string, string> {
  if (origin === undefined) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, www-authenticate',
    vary: 'origin',
  };
}

/** The answer headers of a CORS preflight from an allowed origin. */
export function preflightHeadersFor(origin: string | undefined): Record<string, string> {
  return {
    ...corsHeadersFor(origin),
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers':
      'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id, x-api-key',
    'access-control-max-age': '600',
  };
}
