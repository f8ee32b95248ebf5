import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import { scriptedServer, type ScriptedServer } from '../helpers/scripted-http-server.js';

/**
 * Hosts for the tests of where credentials go: a second loopback origin that records everything it
 * is sent (it must receive nothing), and a front for a real sandbox host that passes requests
 * through except those a rule redirects elsewhere or whose JSON answer it rewrites.
 */

/** The other origin: answers every request with an empty JSON object and keeps what it saw. */
export function elsewhere(): Promise<ScriptedServer> {
  return scriptedServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
}

export type FrontRule = (
  req: IncomingMessage,
) =>
  | { redirect: string; status?: number }
  | { rewrite: (json: Record<string, unknown>, front: string) => Record<string, unknown> }
  | undefined;

export interface Front {
  url: string;
  redirected: number;
}

/** A pass-through in front of `target` on its own loopback port, with `rule` deciding each request. */
export async function front(target: string, rule: FrontRule): Promise<Front> {
  const state: Front = { url: '', redirected: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const decision = rule(req);
      if (decision && 'redirect' in decision) {
        state.redirected += 1;
        res.writeHead(decision.status ?? 307, { location: decision.redirect, 'content-length': '0' });
        res.end();
        return;
      }
      const headers = { ...req.headers, host: new URL(target).host };
      delete headers['accept-encoding'];
      const upstream = request(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => {
          // The host names its own URLs (the session, OAuth metadata): they are this front's to the client.
          let out = Buffer.from(Buffer.concat(body).toString('utf8').split(target).join(state.url), 'utf8');
          if (decision && 'rewrite' in decision && (answer.statusCode ?? 0) < 300) {
            const json = decision.rewrite(JSON.parse(out.toString('utf8')) as Record<string, unknown>, state.url);
            out = Buffer.from(JSON.stringify(json), 'utf8');
          }
          const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': String(out.length) });
          res.end(out);
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanUpAfter(() => {
    server.closeAllConnections();
    server.close();
  });
  return state;
}

/** A rule that redirects requests whose method and path match, and passes the rest through. */
export function redirectWhen(method: string, path: RegExp, to: string, status = 307): FrontRule {
  return (req) =>
    req.method === method && path.test(req.url ?? '') ? { redirect: `${to}${req.url ?? '/'}`, status } : undefined;
}

/** A rule that rewrites the JMAP session resource's answer. */
export function rewriteSession(
  change: (session: Record<string, unknown>, front: string) => Record<string, unknown>,
): FrontRule {
  return (req) =>
    req.method === 'GET' && (req.url ?? '').startsWith('/.well-known/jmap') ? { rewrite: change } : undefined;
}

/** Every request `server` received, as text: what a credential would look like there. */
export function everythingSent(server: ScriptedServer): string {
  return server.requests.map((r) => `${r.method} ${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`).join('\n');
}
