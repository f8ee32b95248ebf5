import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { wordInputs } from '../../../src/render/describe-next.js';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { readBearerToken } from '../../../src/http/bearer-token.js';
import { httpRequest } from '../../../src/http/http-request.js';
import { parseRetryAfter } from '../../../src/http/send-http.js';

type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;
const servers: Array<{ close(): void; closeAllConnections(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function serve(handler: Handler): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    req.resume();
    handler(req, res, hits);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

const serviceError = (res: ServerResponse, status: number, message: string, hint: string): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, hint, docs_url: 'https://docs.example/errors' } }));
};
const fast = { timeoutMs: 2_000, retryBaseMs: 10, retry: 'idempotent' as const };

describe('httpRequest', () => {
  it('resends a POST only on 503 "not processed", never on another 5xx', async () => {
    const server = await serve((_req, res, hit) => {
      if (hit < 3) return serviceError(res, 503, 'Busy.', 'Retry.');
      res.writeHead(200);
      res.end('ok');
    });
    const response = await httpRequest(`${server.url}/x`, { method: 'POST' }, { ...fast, retry: 'once' });
    expect(response.text()).toBe('ok');
    expect(server.hits()).toBe(3);
    const broken = await serve((_req, res) => serviceError(res, 500, 'Broken.', 'Later.'));
    await expect(httpRequest(`${broken.url}/x`, { method: 'POST' }, { ...fast, retry: 'once' })).rejects.toMatchObject({
      code: 'server_error',
    });
    expect(broken.hits()).toBe(1);
  });

  it('never resends a POST whose attempt timed out (it may have taken effect)', async () => {
    const server = await serve(() => undefined);
    const error = (await httpRequest(
      `${server.url}/api/v1/session`,
      { method: 'POST' },
      { timeoutMs: 200, retry: 'once' },
    ).catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('timeout');
    expect(server.hits()).toBe(1);
    expect(error.hint).toMatch(/not resent/);
  });

  it('caps a body that never ends and names host and limit', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = (): void => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      pump();
    });
    const error = (await httpRequest(server.url, {}, { ...fast, maxBytes: 100_000 }).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(error.code).toBe('response_too_large');
    expect(error.message).toContain(server.url);
    expect(error.message).toContain('100000 bytes');
    expect(server.hits()).toBe(1);
  });

  it('honours Retry-After on 429', async () => {
    const server = await serve((_req, res, hit) => {
      if (hit === 1) {
        res.writeHead(429, { 'retry-after': '1' });
        return res.end();
      }
      res.writeHead(200);
      res.end('{}');
    });
    const started = Date.now();
    await httpRequest(server.url, {}, fast);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.hits()).toBe(2);
  });

  it.each([
    [400, 'invalid_input'],
    [401, 'auth_rejected'],
    [409, 'username_taken'],
    [422, 'invalid_input'],
  ])('never retries a %i and surfaces the service message and hint verbatim (§7.2)', async (status, code) => {
    const server = await serve((_req, res) =>
      serviceError(res, status, 'The challenge has expired.', 'Wait for the operator to confirm.'),
    );
    const error = (await httpRequest(`${server.url}/api/v1/session`, { method: 'POST' }, fast).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(server.hits()).toBe(1);
    expect(error).toBeInstanceOf(MailboxError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`The challenge has expired. (HTTP ${status} from POST ${server.url}/api/v1/session)`);
    expect(error.hint).toBe('Wait for the operator to confirm.');
    expect(error.docsUrl).toBe('https://docs.example/errors');
  });

  it('replaces a hint written for raw HTTP clients with our own register call', async () => {
    const server = await serve((_req, res) =>
      serviceError(
        res,
        409,
        'The username "taken-one" is already taken.',
        'Choose another username; then request a fresh challenge with POST /api/v1/challenge, solve it, and retry.',
      ),
    );
    const error = (await httpRequest(
      `${server.url}/api/v1/session`,
      { method: 'POST' },
      { ...fast, retry: 'once' },
    ).catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('username_taken');
    expect(error.message).toMatch(/already taken/);
    expect(error.hint).not.toMatch(/api\/v1|POST/);
    expect(error.hint).toMatch(/register again/);
  });

  it('gives up after the configured retries with server_error', async () => {
    const server = await serve((_req, res) => serviceError(res, 500, 'Broken.', 'Later.'));
    await expect(httpRequest(server.url, {}, { ...fast, retries: 2 })).rejects.toMatchObject({
      code: 'server_error',
      status: 500,
    });
    expect(server.hits()).toBe(3);
  });

  it('times out a request that gets no answer', async () => {
    const server = await serve(() => undefined);
    const error = (await httpRequest(server.url, {}, { timeoutMs: 200, retries: 0, retry: 'idempotent' }).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(error.code).toBe('timeout');
    expect(wordInputs(error.hint, 'cli')).toMatch(/raise --timeout-ms/);
  });

  it('retries a timed-out attempt', async () => {
    const server = await serve((_req, res, hit) => {
      if (hit === 1) return; // never answers
      res.writeHead(200);
      res.end('late but fine');
    });
    expect((await httpRequest(server.url, {}, { timeoutMs: 200, retryBaseMs: 10, retry: 'idempotent' })).text()).toBe(
      'late but fine',
    );
  });

  it('reports a refused connection as a network error after retrying', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
    await expect(httpRequest(url, {}, { ...fast, retries: 1 })).rejects.toMatchObject({ code: 'network' });
  });

  it('stops at once when the caller cancels', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const pending = httpRequest(server.url, {}, { timeoutMs: 10_000, signal: controller.signal, retry: 'idempotent' });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('uses a non-§7.2 body as the message with a hint of its own', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such thing');
    });
    const error = (await httpRequest(server.url, {}, fast).catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('bad_response');
    expect(error.message).toBe(`HTTP 404 from GET ${server.url}/: no such thing`);
  });
});

describe('httpRequest: naming and limits', () => {
  it('names the request by method, host and path, never its query', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(404);
      res.end('gone');
    });
    const error = (await httpRequest(`${server.url}/api/v1/thing?token=abc123`, {}, fast).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(error.message).toBe(`HTTP 404 from GET ${server.url}/api/v1/thing: gone`);
  });

  it('caps an auth host answer at 64 KiB unless told otherwise', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200);
      res.end('x'.repeat(req.url === '/over' ? 64 * 1024 + 1 : 64 * 1024));
    });
    expect((await httpRequest(`${server.url}/exact`, {}, fast)).size).toBe(64 * 1024);
    await expect(httpRequest(`${server.url}/over`, {}, fast)).rejects.toMatchObject({ code: 'response_too_large' });
    expect((await httpRequest(`${server.url}/over`, {}, { ...fast, maxBytes: 100_000 })).size).toBe(64 * 1024 + 1);
  });
});

describe('readBearerToken', () => {
  it('reads the token from the response header with any scheme case', () => {
    expect(readBearerToken({ headers: new Headers({ authorization: 'BEARER a.b.c' }) }, 'x')).toBe('a.b.c');
    expect(readBearerToken({ headers: new Headers({ Authorization: 'bearer  a.b.c ' }) }, 'x')).toBe('a.b.c');
  });

  it('fails with bad_response when the header is missing', () => {
    expect(() => readBearerToken({ headers: new Headers() }, 'POST /api/v1/challenge')).toThrow(
      /answered without an "Authorization: Bearer" token header/,
    );
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
