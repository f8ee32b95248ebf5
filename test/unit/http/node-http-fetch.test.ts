import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '../../../src/http/node-http-fetch.js';

/** The fetch subset the HTTP layer relies on, against a real server on 127.0.0.1. */

let server: Server;
let base: string;
let flooded = 0;
const seen: Array<{ method: string; url: string; body: string; headers: import('node:http').IncomingHttpHeaders }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
      if (req.url === '/see-other') return res.writeHead(303, { location: '/target' }).end();
      if (req.url === '/moved') return res.writeHead(301, { location: '/target' }).end();
      if (req.url === '/found') return res.writeHead(302, { location: '/target' }).end();
      if (req.url === '/found-nowhere') return res.writeHead(302).end('no location');
      if (req.url === '/not-modified') return res.writeHead(304, { location: '/target' }).end();
      if (req.url === '/empty') return res.writeHead(204).end();
      if (req.url === '/hops') return res.writeHead(302, { location: '/hop/1' }).end();
      if (req.url?.startsWith('/hop/')) {
        const n = Number(req.url.slice(5));
        return res.writeHead(302, { location: n >= 19 ? '/target' : `/hop/${n + 1}` }).end();
      }
      if (req.url === '/headers') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(req.headers));
      }
      if (req.url === '/temporary') return res.writeHead(307, { location: '/target' }).end();
      if (req.url === '/cookies') return res.writeHead(200, { 'set-cookie': ['a=1', 'b=2'] }).end();
      if (req.url === '/permanent') return res.writeHead(308, { location: '/target' }).end();
      // 3xx that fetch does not follow, and a non-3xx that names a location anyway.
      if (req.url === '/multiple') return res.writeHead(300, { location: '/target' }).end('choices');
      if (req.url === '/use-proxy') return res.writeHead(305, { location: '/target' }).end('proxy');
      if (req.url === '/bad-location') return res.writeHead(400, { location: '/target' }).end('bad');
      if (req.url === '/almost-ok') return res.writeHead(299).end('fine');
      if (req.url === '/flood') {
        // Up to 64 MiB, written as fast as the client takes it (each write after the last drained).
        flooded = 0;
        const block = Buffer.alloc(64 * 1024, 7);
        const pump = (): void => {
          while (flooded < 64 * 1024 * 1024) {
            flooded += block.length;
            if (!res.write(block)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return pump();
      }
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/large') {
        // 4 MiB in 64 KiB writes: many chunks arrive while nobody reads.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(64 * 1024, i));
        return res.end();
      }
      if (req.url === '/slow-head') return void setTimeout(() => res.writeHead(200).end('late'), 2_000);
      if (req.url === '/endless') {
        // Headers, one chunk, then nothing: only an abort ends the read.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-two': ['a', 'b'] });
      res.end(JSON.stringify({ method: req.method, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function text(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  let out = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out += Buffer.from(value).toString('utf8');
  }
}

describe('nodeHttpFetch', () => {
  it('sends a body and headers, reads status, headers and the body as a web stream', async () => {
    const response = await nodeHttpFetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(response.headers.get('x-two')).toBe('a, b');
    expect(response.headers.get('missing')).toBeNull();
    expect(JSON.parse(await text(response))).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  it('follows 303 as a GET without the body, and 307 with method and body kept', async () => {
    const after303 = await nodeHttpFetch(`${base}/see-other`, { method: 'POST', body: 'x' });
    expect(JSON.parse(await text(after303))).toEqual({ method: 'GET', body: '' });
    expect(after303.url).toBe(`${base}/target`);
    const after307 = await nodeHttpFetch(`${base}/temporary`, { method: 'POST', body: 'kept' });
    expect(JSON.parse(await text(after307))).toEqual({ method: 'POST', body: 'kept' });
  });

  it('gives up on a redirect loop, and returns the 3xx itself with redirect: manual', async () => {
    await expect(nodeHttpFetch(`${base}/loop`)).rejects.toThrow(TypeError);
    const manual = await nodeHttpFetch(`${base}/loop`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/loop');
  });

  it('rejects like fetch when nothing listens: TypeError with the cause code', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const error = await nodeHttpFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('holds chunks that arrive while nobody reads and hands over every byte in order', async () => {
    const response = await nodeHttpFetch(`${base}/large`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reader = response.body!.getReader();
    const chunks: Buffer[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
    }
    const body = Buffer.concat(chunks);
    expect(body.length).toBe(64 * 64 * 1024);
    for (let i = 0; i < 64; i++) expect(body[i * 64 * 1024]).toBe(i);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('stops taking bytes off the socket while nobody reads, so an unread body cannot grow this process', async () => {
    const response = await nodeHttpFetch(`${base}/flood`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const early = flooded;
    await new Promise((resolve) => setTimeout(resolve, 700));
    // What the socket buffers hold, then nothing more: a client that kept reading takes it all.
    expect(flooded).toBe(early);
    expect(flooded).toBeLessThan(16 * 1024 * 1024);
    await response.body!.getReader().cancel();
  });

  it('cancel() closes the connection and ends the read', async () => {
    const response = await nodeHttpFetch(`${base}/endless`);
    const reader = response.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('first');
    await reader.cancel();
    expect((await reader.read()).done).toBe(true);
  });

  it('an abort during the body ends the read with an error instead of waiting forever', async () => {
    const controller = new AbortController();
    const response = await nodeHttpFetch(`${base}/endless`, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('first');
    const pending = reader.read();
    controller.abort(new Error('deadline passed'));
    await expect(pending).rejects.toThrow('the response was cut off');
  });

  it('an abort before the answer rejects with the signal reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(nodeHttpFetch(`${base}/echo`, { signal: controller.signal })).rejects.toThrow('stop');
  });
});

const lastSeen = () => seen.at(-1)!;

describe('nodeHttpFetch: requests as fetch sends them', () => {
  it('sends headers given as an object, an array of pairs or a Headers, names lowercased', async () => {
    for (const headers of [{ 'X-One': 'a' }, [['X-One', 'a']] as [string, string][], new Headers({ 'X-One': 'a' })]) {
      const response = await nodeHttpFetch(`${base}/headers`, { headers });
      expect((JSON.parse(await text(response)) as Record<string, string>)['x-one']).toBe('a');
    }
  });

  it('drops the Content-Type on a redirect that turns a POST into a GET, whatever form the headers came in', async () => {
    for (const headers of [
      [['Content-Type', 'text/plain']] as [string, string][],
      new Headers({ 'Content-Type': 'text/plain' }),
      { 'Content-Type': 'text/plain' },
    ]) {
      await text(await nodeHttpFetch(`${base}/see-other`, { method: 'POST', body: 'x', headers }));
      expect(lastSeen().headers['content-type']).toBeUndefined();
    }
  });

  it('skips a header pair without a name or a value instead of failing the request', async () => {
    const headers = [['X-One', 'a'], ['X-Half'], []] as unknown as [string, string][];
    const response = await nodeHttpFetch(`${base}/headers`, { headers });
    const seenHeaders = JSON.parse(await text(response)) as Record<string, string>;
    expect(seenHeaders['x-one']).toBe('a');
    expect(seenHeaders['x-half']).toBeUndefined();
  });

  it('sends no body for a null body, and reads repeated answer headers joined', async () => {
    await text(await nodeHttpFetch(`${base}/echo`, { method: 'POST', body: null }));
    expect(lastSeen()).toMatchObject({ method: 'POST', body: '' });
    const cookies = await nodeHttpFetch(`${base}/cookies`);
    expect(cookies.headers.get('set-cookie')).toBe('a=1, b=2');
    const seenNames: string[] = [];
    cookies.headers.forEach((value, name) => name === 'set-cookie' && seenNames.push(value));
    expect(seenNames).toEqual(['a=1, b=2']);
  });

  it('sends a byte body with its length, and a string body as UTF-8', async () => {
    const bytes = new TextEncoder().encode('héllo').subarray(1);
    await text(await nodeHttpFetch(`${base}/echo`, { method: 'PUT', body: bytes }));
    expect(lastSeen()).toMatchObject({ method: 'PUT', body: 'éllo' });
    expect(lastSeen().headers['content-length']).toBe(String(bytes.byteLength));
    await text(await nodeHttpFetch(`${base}/echo`, { method: 'post', body: 'ünï' }));
    expect(lastSeen()).toMatchObject({ method: 'POST', body: 'ünï' });
    expect(lastSeen().headers['content-length']).toBe('5');
    await text(await nodeHttpFetch(`${base}/echo`));
    expect(lastSeen().headers['content-length']).toBeUndefined();
  });

  it('refuses a body it cannot send', async () => {
    await expect(nodeHttpFetch(`${base}/echo`, { method: 'POST', body: new URLSearchParams('a=1') })).rejects.toThrow(
      'node-http-fetch sends string and byte bodies only',
    );
  });

  it('takes the URL as a string, a URL or a Request', async () => {
    for (const input of [`${base}/echo`, new URL(`${base}/echo`), new Request(`${base}/echo`)]) {
      expect((await nodeHttpFetch(input)).status).toBe(200);
    }
  });

  it('answers status, statusText, ok, url and redirected as fetch does', async () => {
    const direct = await nodeHttpFetch(`${base}/echo`);
    expect(direct).toMatchObject({ status: 200, statusText: 'OK', ok: true, url: `${base}/echo`, redirected: false });
    expect(direct.headers.has('content-type')).toBe(true);
    expect(direct.headers.has('x-missing')).toBe(false);
    const names: string[] = [];
    direct.headers.forEach((value, name) => names.push(`${name}=${value}`));
    expect(names).toContain('x-two=a, b');
    const moved = await nodeHttpFetch(`${base}/found`);
    expect(moved).toMatchObject({ status: 200, url: `${base}/target`, redirected: true });
    const notFound = await nodeHttpFetch(`${base}/found-nowhere`);
    expect(notFound).toMatchObject({ status: 302, ok: false, redirected: false });
  });

  it('continues 301 and 302 after a POST as a GET without the body, but keeps a GET a GET', async () => {
    for (const path of ['/moved', '/found']) {
      const after = await nodeHttpFetch(`${base}${path}`, {
        method: 'POST',
        body: 'x',
        headers: { 'content-type': 'text/plain', 'x-kept': 'yes' },
      });
      expect(JSON.parse(await text(after))).toEqual({ method: 'GET', body: '' });
      expect(lastSeen().headers['content-type']).toBeUndefined();
      expect(lastSeen().headers['x-kept']).toBe('yes');
    }
    const put = await nodeHttpFetch(`${base}/moved`, { method: 'PUT', body: 'kept' });
    expect(JSON.parse(await text(put))).toEqual({ method: 'PUT', body: 'kept' });
  });

  it('follows up to 20 redirects, and refuses with redirect: error', async () => {
    expect((await nodeHttpFetch(`${base}/hops`)).url).toBe(`${base}/target`);
    const refused = await nodeHttpFetch(`${base}/found`, { redirect: 'error' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error).message).toBe('fetch failed');
    expect(((refused as Error).cause as Error).message).toBe('redirect refused after 1 hop(s)');
    const loop = await nodeHttpFetch(`${base}/loop`).catch((e: unknown) => e);
    expect(((loop as Error).cause as Error).message).toBe('redirect refused after 21 hop(s)');
  });

  it('follows 308 with method and body kept', async () => {
    const after = await nodeHttpFetch(`${base}/permanent`, { method: 'POST', body: 'kept' });
    expect(JSON.parse(await text(after))).toEqual({ method: 'POST', body: 'kept' });
    expect(after).toMatchObject({ url: `${base}/target`, redirected: true });
  });

  it('answers a 300, a 305 and a 400 that name a location as themselves, as fetch does', async () => {
    for (const [path, status, body] of [
      ['/multiple', 300, 'choices'],
      ['/use-proxy', 305, 'proxy'],
      ['/bad-location', 400, 'bad'],
    ] as const) {
      const before = seen.length;
      const response = await nodeHttpFetch(`${base}${path}`, { method: 'POST', body: 'x' });
      expect(response, path).toMatchObject({ status, ok: false, redirected: false, url: `${base}${path}` });
      expect(await text(response)).toBe(body);
      expect(seen.length - before, path).toBe(1);
    }
    expect(await nodeHttpFetch(`${base}/almost-ok`)).toMatchObject({ status: 299, ok: true });
  });

  it('gives no body for HEAD, 204 and 304, and a 304 is not followed', async () => {
    expect((await nodeHttpFetch(`${base}/echo`, { method: 'HEAD' })).body).toBeNull();
    expect((await nodeHttpFetch(`${base}/empty`)).body).toBeNull();
    const notModified = await nodeHttpFetch(`${base}/not-modified`);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
  });

  it('refuses a protocol other than http and https like fetch', async () => {
    const error = await nodeHttpFetch('ftp://127.0.0.1/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
    expect(((error as Error).cause as Error).message).toBe('unsupported protocol ftp:');
  });

  it("rejects with the signal's reason when aborted before the answer, and frees the socket", async () => {
    const controller = new AbortController();
    const pending = nodeHttpFetch(`${base}/slow-head`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('gave up')), 50);
    const started = Date.now();
    await expect(pending).rejects.toThrow('gave up');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('speaks https to an https URL (here a plain server, so the handshake fails as a network error)', async () => {
    const error = await nodeHttpFetch(base.replace('http:', 'https:')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
    expect(((error as Error).cause as Error).message).not.toMatch(/unsupported protocol/);
  });
});

describe('nodeHttpFetch: the body reader', () => {
  it('ends a read with an error when the server breaks the connection mid-body', async () => {
    const response = await nodeHttpFetch(`${base}/endless`);
    const reader = response.body!.getReader();
    await reader.read();
    const pending = reader.read();
    server.closeAllConnections();
    // The socket's own error, not replaced by the close that follows it.
    await expect(pending).rejects.toMatchObject({ code: 'ECONNRESET' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(reader.read()).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('after cancel() reads as done, with nothing held back', async () => {
    const response = await nodeHttpFetch(`${base}/large`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reader = response.body!.getReader();
    await reader.cancel();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    // Still done once the connection has closed behind the cancel.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    reader.releaseLock();
  });
});
