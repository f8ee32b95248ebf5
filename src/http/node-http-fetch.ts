import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { FetchFunction } from './send-http.js';

/**
 * The part of `fetch` the HTTP layer uses, over node:http. node's global fetch loads undici and
 * its WebAssembly HTTP parser on first use: ~25 ms and ~40 MiB of peak memory in a process that
 * makes one request, which a shell agent pays on every step. Same contract as fetch for the
 * caller: rejects with TypeError("fetch failed", { cause }) on network errors and with the
 * signal's reason on abort; follows redirects like fetch; the body is a web ReadableStream.
 */

const maxRedirects = 20;

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
    for (const name of Object.keys(this.raw)) callback(this.get(name) ?? '', name);
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

function webBody(res: IncomingMessage): ReadableStream<Uint8Array> {
  let ended = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      res.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.on('end', () => {
        ended = true;
        controller.close();
      });
      res.on('error', (error) => controller.error(error));
      // Destroyed without an error (an abort): the reader must not wait for an end that never comes.
      res.on('close', () => {
        if (!ended && !res.errored) controller.error(new Error('the response was cut off'));
      });
    },
    pull() {
      res.resume();
    },
    cancel() {
      res.destroy();
    },
  });
}

function once(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const send = (requestFn: typeof httpRequest): void => {
      const req = requestFn(url, { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
        signal?.removeEventListener('abort', onAbort);
        // An abort during the body still has to stop the transfer.
        signal?.addEventListener('abort', () => res.destroy(), { once: true });
        resolve(res);
      });
      const onAbort = (): void => {
        req.destroy();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
      });
      req.end(body);
    };
    if (url.protocol === 'http:') return send(httpRequest);
    if (url.protocol !== 'https:') return reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }));
    // TLS is loaded only for https hosts (the live service), never for the local sandbox.
    import('node:https').then(({ request }) => send(request), reject);
  });
}

export const nodeHttpFetch: FetchFunction = async (input, init = {}) => {
  let url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = headerRecord(init.headers);
  let body = bodyBytes(init.body);
  const signal = init.signal ?? undefined;
  for (let hops = 0; ; hops++) {
    const res = await once(url, method, headers, body, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && status !== 304 && location && (init.redirect ?? 'follow') !== 'manual') {
      res.resume();
      if (init.redirect === 'error' || hops >= maxRedirects) throw new TypeError('fetch failed', { cause: new Error(`redirect refused after ${hops + 1} hop(s)`) });
      url = new URL(location, url);
      // As fetch does: 303, and 301/302 after a POST, continue as a GET without a body.
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      continue;
    }
    const response = {
      status,
      statusText: res.statusMessage ?? '',
      ok: status >= 200 && status < 300,
      url: url.href,
      redirected: hops > 0,
      headers: new NodeHeaders(res.headers),
      body: method === 'HEAD' || status === 204 || status === 304 ? null : webBody(res),
    };
    if (!response.body) res.resume();
    return response as unknown as Response;
  }
};
