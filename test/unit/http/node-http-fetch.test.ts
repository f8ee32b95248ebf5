import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '../../../src/http/node-http-fetch.js';

/** The fetch subset the HTTP layer relies on, against a real server on 127.0.0.1. */

let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      if (req.url === '/see-other') return res.writeHead(303, { location: '/target' }).end();
      if (req.url === '/temporary') return res.writeHead(307, { location: '/target' }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/large') {
        // 4 MiB in 64 KiB writes: many chunks arrive while nobody reads.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(64 * 1024, i));
        return res.end();
      }
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
    const response = await nodeHttpFetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
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
    await expect(pending).rejects.toThrow();
  });

  it('an abort before the answer rejects with the signal reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(nodeHttpFetch(`${base}/echo`, { signal: controller.signal })).rejects.toThrow('stop');
  });
});
