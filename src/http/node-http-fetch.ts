import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { FetchFunction } from './http-types.js';
import { checkRedirect } from './origin-rule.js';

/**
 * The part of `fetch` the HTTP layer uses, over node:http: global fetch loads undici on first use (~25 ms, ~40 MiB
 * peak), paid by a shell agent on every step. As fetch: TypeError("fetch failed", { cause }) on network errors, the
 * signal's reason on abort, redirects followed (only within the origin); the body offers getReader() and cancel().
 */

const maxRedirects = 20;
/** The statuses fetch follows (WHATWG Fetch, "redirect status"); any other 3xx is the answer itself. */
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

class NodeHeaders {
  constructor(private readonly raw: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const name of Object.keys(this.raw)) callback(String(this.get(name)), name);
  }
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (Array.isArray(headers)) {
    for (const [name, value] of headers) if (name !== undefined && value !== undefined) out[name.toLowerCase()] = value;
  } else if (typeof (headers as Headers).forEach === 'function') {
    (headers as Headers).forEach((value, name) => (out[name.toLowerCase()] = value));
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, string>)) out[name.toLowerCase()] = value;
  }
  return out;
}

function bodyBytes(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('node-http-fetch sends string and byte bodies only');
}

/** A web ReadableStream's reader over the response: a real stream cost the MCP server ~0.03 ms of every call. */
type ReadResult = { done: false; value: Uint8Array } | { done: true; value: undefined };

class NodeBodyReader {
  private readonly queued: Buffer[] = [];
  private waiting: { resolve: (result: ReadResult) => void; reject: (error: unknown) => void } | undefined;
  private ended = false;
  private failure: unknown;

  constructor(private readonly res: IncomingMessage) {
    res.on('data', (chunk: Buffer) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) return waiting.resolve({ done: false, value: chunk });
      // Nobody is reading: hold this chunk and stop the socket until someone does.
      this.queued.push(chunk);
      res.pause();
    });
    res.on('end', () => {
      this.ended = true;
      this.waiting?.resolve({ done: true, value: undefined });
      this.waiting = undefined;
    });
    res.on('error', (error) => this.fail(error));
    // Destroyed without an error (an abort): no end will come. After an end or an error, fail() keeps what is known.
    res.on('close', () => this.fail(new Error('the response was cut off')));
  }

  read(): Promise<ReadResult> {
    const next = this.queued.shift();
    if (next) return Promise.resolve({ done: false, value: next });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.res.resume();
    });
  }

  cancel(): Promise<void> {
    this.ended = true;
    this.queued.length = 0;
    this.res.destroy();
    return Promise.resolve();
  }

  releaseLock(): void {}

  private fail(error: unknown): void {
    if (this.failure !== undefined || this.ended) return;
    this.failure = error;
    this.queued.length = 0;
    this.waiting?.reject(error);
    this.waiting = undefined;
  }
}

/** What the HTTP layer reads of a body: getReader() and cancel(), as on a web ReadableStream. */
function nodeBody(res: IncomingMessage): ReadableStream<Uint8Array> {
  const reader = new NodeBodyReader(res);
  return {
    getReader: () => reader,
    cancel: () => reader.cancel(),
  } as unknown as ReadableStream<Uint8Array>;
}

function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const send = (requestFn: typeof httpRequest): void => {
      const req = requestFn(
        url,
        // end(body) with nothing written before sets Content-Length itself: no chunked upload.
        { method, headers },
        (res) => {
          signal?.removeEventListener('abort', onAbort);
          // An abort during the body still has to stop the transfer.
          signal?.addEventListener('abort', () => res.destroy());
          resolve(res);
        },
      );
      const onAbort = (): void => {
        req.destroy();
        // Stryker disable next-line OptionalChaining: equivalent, only a signal calls this
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort);
      req.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
      });
      req.end(body);
    };
    if (url.protocol === 'http:') return send(httpRequest);
    if (url.protocol !== 'https:')
      return reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }));
    // TLS is loaded only for https hosts (the live service), never for the local sandbox.
    import('node:https').then(({ request }) => send(request), reject);
  });
}

export const nodeHttpFetch: FetchFunction = async (input, init = {}) => {
  let url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  // Stryker disable next-line StringLiteral: equivalent, node:http sends GET for an empty method
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = headerRecord(init.headers);
  let body = bodyBytes(init.body);
  const signal = init.signal ?? undefined;
  for (let hops = 0; ; hops++) {
    const res = await once(url, method, headers, body, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (redirectStatuses.has(status) && location && init.redirect !== 'manual') {
      res.resume();
      if (init.redirect === 'error' || hops >= maxRedirects)
        throw new TypeError('fetch failed', { cause: new Error(`redirect refused after ${hops + 1} hop(s)`) });
      const next = new URL(location, url);
      checkRedirect(url, next);
      url = next;
      // As fetch does: 303, and 301/302 after a POST, continue as a GET without a body.
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        // Stryker disable next-line StringLiteral: equivalent, node:http sends GET for an empty method
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      continue;
    }
    const response = {
      status,
      statusText: res.statusMessage,
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, node:http hands over no 1xx as the answer
      ok: status >= 200 && status < 300,
      url: url.href,
      redirected: hops > 0,
      headers: new NodeHeaders(res.headers),
      body: method === 'HEAD' || status === 204 || status === 304 ? null : nodeBody(res),
    };
    // Stryker disable next-line all: frees the socket of an answer without a body; nothing reads it either way
    if (!response.body) res.resume();
    return response as unknown as Response;
  }
};
