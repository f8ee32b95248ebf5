import { request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { jmapSessionPath } from '../wire-constants.js';
import type { CapabilityClaims, OutboxEntry } from '../mail-backend.js';

/** What the gateway needs: where Cyrus's httpd is, who may call, and how to log in as them. */
export interface JmapGatewayOptions {
  cyrusHttpPort: number;
  verifyCapability(bearer: string): Promise<CapabilityClaims>;
  /** The Cyrus password of an inbox this backend created; undefined for any other address. */
  passwordOf(address: string): string | undefined;
  publicApiUrl(): string;
  outbox(): OutboxEntry[];
  log: (line: string) => void;
}

/** Cyrus's session: the URL fields are relative on 3.6 (`/jmap/`), everything else passes through. */
const cyrusSessionSchema = z.looseObject({
  apiUrl: z.string(),
  downloadUrl: z.string(),
  uploadUrl: z.string(),
  eventSourceUrl: z.string().optional(),
  accounts: z.record(z.string(), z.unknown()),
});

const sessionUrlFields = ['apiUrl', 'downloadUrl', 'uploadUrl'] as const;

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1), plus Cyrus's h2c offer. */
const hopHeaders = new Set([
  'connection',
  'keep-alive',
  'upgrade',
  'alt-svc',
  'transfer-encoding',
  'host',
  'authorization',
  'accept-encoding',
  'proxy-authorization',
  'te',
  'trailer',
]);

class GatewayFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * The JMAP host in front of Cyrus: checks the capability JWT, then forwards session, /jmap,
 * upload and download to Cyrus with Basic auth as that inbox's user. Session URLs are rewritten
 * to this host's absolute ones, so a client sees the live service's shape (spec §2.6).
 */
export function createJmapGateway(options: JmapGatewayOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!URL.canParse(req.url ?? '/', 'http://gateway.invalid')) {
      req.resume();
      throw new GatewayFailure(
        400,
        'The request target is not a valid URL path.',
        `Discover the endpoints with GET ${jmapSessionPath}.`,
      );
    }
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith('/jmap/eventsource')) {
      // Cyrus 3.6 advertises eventSourceUrl but answers every request on it with 204 and no stream
      // (test/cyrus/DIFFERENCES.md); the session leaves the URL out, and a guessed one gets this.
      req.resume();
      throw new GatewayFailure(
        501,
        'Push (EventSource) is not available with the Cyrus backend.',
        'Poll with Email/changes from your last state, or run the sandbox with --backend embedded for push.',
      );
    }
    if (url.pathname === '/sandbox/outbox' && method === 'GET') {
      req.resume();
      return sendJson(res, 200, { outbox: options.outbox() });
    }
    const isSession =
      method === 'GET' && (url.pathname === jmapSessionPath || url.pathname === '/jmap' || url.pathname === '/jmap/');
    if (!isSession && !url.pathname.startsWith('/jmap/')) {
      req.resume();
      throw new GatewayFailure(
        404,
        `No endpoint ${method} ${url.pathname} on this JMAP host.`,
        `Discover the endpoints with GET ${jmapSessionPath}.`,
      );
    }
    const claims = await authenticate(req);
    const password = options.passwordOf(claims.address);
    if (password === undefined) {
      req.resume();
      throw new GatewayFailure(
        401,
        `The inbox ${claims.address} does not exist on this sandbox.`,
        'Sign up again on the auth host and use the new capability token.',
      );
    }
    const basic = `Basic ${Buffer.from(`${claims.address}:${password}`).toString('base64')}`;
    if (isSession) {
      req.resume();
      return sendJson(res, 200, await fetchSession(basic));
    }
    await forward(req, res, url.pathname + url.search, basic);
  };

  async function authenticate(req: IncomingMessage): Promise<CapabilityClaims> {
    const header = req.headers.authorization;
    if (!header || !/^bearer\s+\S/i.test(header)) {
      throw new GatewayFailure(
        401,
        'The JMAP host needs a capability token.',
        'Send Authorization: Bearer <capability JWT> from POST /api/v1/capability on the auth host.',
      );
    }
    try {
      return await options.verifyCapability(header);
    } catch (error) {
      const detail = error instanceof Error ? error.message : 'invalid token';
      throw new GatewayFailure(
        401,
        `The capability token was refused: ${detail}`,
        'Mint a fresh capability JWT with POST /api/v1/capability and retry.',
      );
    }
  }

  /** Cyrus answers /.well-known/jmap with a 301 to /jmap (cyrus.md); the gateway follows it itself. */
  async function fetchSession(basic: string): Promise<unknown> {
    let path = jmapSessionPath;
    for (let hop = 0; hop < 3; hop += 1) {
      const reply = await cyrusGet(path, basic);
      if (reply.status >= 300 && reply.status < 400 && reply.location) {
        path = new URL(reply.location, 'http://cyrus.invalid').pathname;
        continue;
      }
      if (reply.status !== 200)
        throw new GatewayFailure(
          502,
          `Cyrus answered the session request with HTTP ${reply.status}.`,
          'Check the sandbox log (Cyrus syslog) and retry.',
        );
      const session = cyrusSessionSchema.parse(JSON.parse(reply.body));
      const base = options.publicApiUrl().replace(/\/+$/, '');
      const { eventSourceUrl: _unusable, ...rest } = session;
      const rewritten: Record<string, unknown> = { ...rest };
      for (const field of sessionUrlFields) {
        const value = session[field];
        // String concatenation, not new URL(): the templates' {braces} must stay unescaped (RFC 6570).
        if (value !== undefined)
          rewritten[field] = value.startsWith('/') ? `${base}${value}` : value.replace(/^https?:\/\/[^/]+/, base);
      }
      return rewritten;
    }
    throw new GatewayFailure(
      502,
      'Cyrus redirected the session request too often.',
      'Check the Cyrus configuration of the sandbox.',
    );
  }

  function cyrusGet(path: string, basic: string): Promise<{ status: number; location?: string; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: options.cyrusHttpPort,
          path,
          method: 'GET',
          headers: { authorization: basic, accept: 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              ...(res.headers.location ? { location: res.headers.location } : {}),
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** Streams the request to Cyrus and its answer back, bodies untouched (uploads, downloads, /jmap/). */
  function forward(req: IncomingMessage, res: ServerResponse, path: string, basic: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const upstream = request(
        {
          host: '127.0.0.1',
          port: options.cyrusHttpPort,
          path,
          method: req.method ?? 'GET',
          headers: { ...endToEnd(req.headers), authorization: basic },
        },
        (reply) => {
          const headers = endToEnd(reply.headers);
          const location = reply.headers.location;
          if (location)
            headers['location'] = location.replace(/^https?:\/\/[^/]+/, options.publicApiUrl().replace(/\/+$/, ''));
          res.writeHead(reply.statusCode ?? 502, headers);
          reply.pipe(res);
          reply.on('end', resolve);
          reply.on('error', reject);
        },
      );
      upstream.on('error', reject);
      // An EventSource stream ends only when its client goes; the Cyrus side must go with it.
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    });
  }

  return (req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof GatewayFailure)
        return sendJson(
          res,
          error.status,
          problem(error.status, error.message, error.hint),
          error.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
        );
      options.log(
        `cyrus gateway: ${req.method} ${req.url} failed: ${error instanceof Error ? error.stack : String(error)}`,
      );
      if (hungUp(error))
        return sendJson(
          res,
          502,
          problem(
            502,
            'Cyrus closed the connection without answering (its httpd may have crashed on this request).',
            "Retry; if this request fails each time, Cyrus cannot serve it (test/cyrus/DIFFERENCES.md); check the sandbox's stderr.",
          ),
        );
      sendJson(
        res,
        502,
        problem(502, 'The JMAP gateway could not reach Cyrus.', "Retry; if it repeats, check the sandbox's stderr."),
      );
    });
  };
}

/** Cyrus took the connection and dropped it with no answer (a crashed httpd child), as opposed to not being reachable. */
function hungUp(error: unknown): boolean {
  return (
    error instanceof Error &&
    ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || error.message === 'socket hang up')
  );
}

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopHeaders.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}

/** An RFC 7807 problem document, as JMAP request-level errors are (RFC 8620 §3.6.1). */
function problem(status: number, detail: string, hint: string): Record<string, unknown> {
  return { type: 'about:blank', status, detail, hint };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}
