import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';

/**
 * A web-standard Request for the SDK's transports, from a Node request whose body the endpoint has
 * already read (it goes to the transport as `parsedBody`). Its signal aborts when the client goes
 * away, so a tool call in progress learns of it.
 */
export function webRequestOf(req: IncomingMessage, res: ServerResponse, origin: string): Request {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
  });
}

/** Writes a web Response (a JSON body, an empty 202 or an SSE stream) to a Node response. */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (response.body === null) {
    // Framed with a length, so a 202 or 204 is never sent as an open-ended chunked body.
    res.writeHead(response.status, { ...headers, 'content-length': '0' });
    res.end();
    return;
  }
  delete headers['content-length'];
  res.writeHead(response.status, headers);
  res.flushHeaders();
  try {
    await pipeline(Readable.fromWeb(response.body as unknown as NodeWebStream<Uint8Array>), res);
  } catch {
    // The client went away mid-stream (an SSE stream it closed): nothing is left to tell it.
  }
}

/** Reads a request body up to `maxBytes`; `undefined` once it is larger (the rest is drained, unread). */
export async function readBodyUpTo(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early must not destroy the request: the 413 still has to be written.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxBytes) {
      req.resume();
      return undefined;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
