import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedServer {
  url: string;
  hits(): number;
  requests: SeenRequest[];
}

/**
 * An HTTP server on 127.0.0.1 (port 0) that answers as `handler` says, once it has read each
 * request's body; `hit` counts from 1. Closed when the test (or, at a file's top level, the file) ends.
 */
export async function scriptedServer(
  handler: (req: IncomingMessage, res: ServerResponse, hit: number, body: string) => void,
): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, requests.length, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanUpAfter(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => requests.length, requests };
}

/** A port nothing listens on (it was just closed). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
