import type { IncomingMessage, ServerResponse } from 'node:http';
import { sandboxDocsUrl } from '../../sandbox-docs-url.js';
import { jsonChunks } from './json-pieces.js';

/** Reads a request body up to a byte limit; `undefined` means the limit was exceeded. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) {
      req.resume();
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let isOver = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) isOver = true;
      if (!isOver) chunks.push(chunk);
    });
    req.on('end', () => resolve(isOver ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Sends a JSON body. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const chunks = jsonChunks(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(chunks.reduce((sum, chunk) => sum + chunk.length, 0)),
    'cache-control': 'no-store',
    ...headers,
  });
  for (const chunk of chunks.slice(0, -1)) res.write(chunk);
  res.end(chunks.at(-1));
}

/** Sends the service's error shape `{error: {message, hint, docs_url}}` (spec §7.2). */
export function sendServiceError(
  res: ServerResponse,
  status: number,
  message: string,
  hint: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, hint, docs_url: sandboxDocsUrl } }, headers);
}

/** Sends RFC 7807 problem details. */
export function sendProblem(res: ServerResponse, body: Record<string, unknown>): void {
  const data = Buffer.from(JSON.stringify(body));
  const status = typeof body['status'] === 'number' ? body['status'] : 400;
  res.writeHead(status, { 'content-type': 'application/problem+json', 'content-length': String(data.length) });
  res.end(data);
}

/** The bearer token of a request, scheme matched case-insensitively. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}
