import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';

/**
 * Deliberately broken hosts on 127.0.0.1 port 0. Each records the secrets it was sent (bearer
 * tokens, apiKeys in bodies) so a test can check that none of them comes back out of the client.
 */
export interface FaultServer {
  url: string;
  /** Tokens and keys this server received. */
  seen: Set<string>;
  hits(): number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, server: FaultServer) => void;

function record(req: IncomingMessage, body: string, seen: Set<string>): void {
  const bearer = /bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer) seen.add(bearer);
  const apiKey = /"apiKey"\s*:\s*"([^"]+)"/.exec(body)?.[1];
  if (apiKey) seen.add(apiKey);
}

export async function httpFault(handler: Handler): Promise<FaultServer> {
  let hits = 0;
  const seen = new Set<string>();
  const server = createHttpServer((req, res) => {
    hits += 1;
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      record(req, body, seen);
      handler(req, res, body, fault);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fault: FaultServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    hits: () => hits,
  };
  cleanUpAfter(() => {
    server.closeAllConnections();
    server.close();
  });
  return fault;
}

/** Accepts and reads, never answers. */
export const hang = (): Promise<FaultServer> => httpFault(() => undefined);

/** 200 and a body that never ends, as fast as the client reads. */
export const streamForever = (): Promise<FaultServer> =>
  httpFault((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    res.write('{"padding":"');
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });

/** Answers the head and the first bytes of a body that promises more, then sends nothing, never closing. */
export const stallMidBody = (): Promise<FaultServer> =>
  httpFault((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4000' });
    res.write('{"sessionState":"s1","methodResponses":[["Email/query",');
  });

/** Promises 100 000 bytes, sends a few, then resets the connection. */
export const resetMidBody = (): Promise<FaultServer> =>
  httpFault((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
    res.write('{"capabilities":{');
    setImmediate(() => res.socket?.resetAndDestroy());
  });

/** Always the given status with Retry-After. */
export const busy = (status: 429 | 503, retryAfterSeconds: number): Promise<FaultServer> =>
  httpFault((_req, res) => {
    res.writeHead(status, { 'retry-after': String(retryAfterSeconds), 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'about:blank', detail: 'busy' }));
  });

/** A problem+json whose detail echoes the Authorization header and the body, whole and in pieces. */
export const echoSecrets = (status: number): Promise<FaultServer> =>
  httpFault((req, res, body) => {
    const auth = req.headers.authorization ?? '';
    const token = auth.replace(/^bearer\s+/i, '');
    const [header = '', payload = '', signature = ''] = token.split('.');
    const apiKey = /"apiKey"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? '';
    const detail = `Rejected request with Authorization: ${auth}; token parts ${header}.${payload} and ${signature}; key ${apiKey} / ${apiKey.slice(4, 30)}; body ${body}`;
    res.writeHead(status, { 'content-type': 'application/problem+json' });
    res.end(
      JSON.stringify({
        type: 'urn:ietf:params:jmap:error:notRequest',
        status,
        detail,
        error: { message: detail, hint: `Send ${token} again` },
      }),
    );
  });

/** Sends a status line and then one header byte every 100 ms, forever. */
export async function dripHeaders(): Promise<FaultServer> {
  let hits = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    hits += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
    const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('a')), 100);
    socket.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanUpAfter(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen: new Set(), hits: () => hits };
}

/**
 * A proxy to a real auth host with one fault: `loseSignUp` forwards a sign-up (so the inbox IS
 * created) and then drops the client's connection instead of answering; `echoOn` answers that
 * path itself with a refusal (403 unless told) echoing what it was sent.
 */
export async function authProxy(
  upstream: string,
  mode: { loseSignUp?: true; echoOn?: string; echoStatus?: number },
): Promise<FaultServer & { signUps(): number }> {
  let signUps = 0;
  const echo = mode.echoOn ? await echoSecrets(mode.echoStatus ?? 403) : undefined;
  const fault = await httpFault((req, res, body, self) => {
    const isSignUp = req.url === '/api/v1/session' && /"username"/.test(body);
    if (isSignUp) signUps += 1;
    const target = echo && req.url === mode.echoOn ? echo.url : upstream;
    void fetch(`${target}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && k !== 'host' && k !== 'content-length'),
      ) as Record<string, string>,
      ...(req.method === 'POST' ? { body } : {}),
    }).then(async (answer) => {
      const text = await answer.text();
      const bearer = /bearer\s+(\S+)/i.exec(answer.headers.get('authorization') ?? '')?.[1];
      if (bearer) self.seen.add(bearer);
      const apiKey = /"apiKey"\s*:\s*"([^"]+)"/.exec(text)?.[1];
      if (apiKey) self.seen.add(apiKey);
      if (isSignUp && mode.loseSignUp) {
        // The inbox now exists upstream; the client never hears about it.
        res.socket?.resetAndDestroy();
        return;
      }
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, key) => {
        if (key !== 'content-length' && key !== 'content-encoding' && key !== 'transfer-encoding') headers[key] = value;
      });
      res.writeHead(answer.status, headers);
      res.end(text);
    });
  });
  return { ...fault, signUps: () => signUps };
}
