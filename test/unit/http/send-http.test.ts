import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import type { FetchFunction } from '../../../src/http/http-types.js';
import { parseRetryAfter, sendHttp, type SendOptions } from '../../../src/http/send-http.js';
import type { Logger } from '../../../src/log.js';
import { closedPort, scriptedServer } from '../../helpers/scripted-http-server.js';

/**
 * The HTTP layer's one rule set (src/http/send-http.ts), request by request: which answers and
 * failures are resent under which RetryRule, how the budget and Retry-After bound the resends,
 * the caps on bodies, and what a failed request says to do next.
 */

const base: SendOptions = {
  what: 'test request',
  retry: 'idempotent',
  timeoutMs: 2_000,
  maxBytes: 1_000_000,
  retryBaseMs: 1,
};

const answer =
  (status: number, body = '', headers: Record<string, string> = {}) =>
  (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(status, headers);
    res.end(body);
  };

const failure = async (call: Promise<unknown>): Promise<MailboxError> => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MailboxError);
  return error as MailboxError;
};

/** A fetch that fails before anything is sent or after, as node's fetch reports it. */
function failingFetch(code: string, calls: { n: number }, message = `connect ${code}`): FetchFunction {
  return async () => {
    calls.n += 1;
    throw new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
  };
}

describe('sendHttp: which answers are resent', () => {
  it.each([
    [500, 'idempotent', 3],
    [502, 'idempotent', 3],
    [504, 'idempotent', 3],
    [408, 'idempotent', 3],
    [499, 'idempotent', 1],
    [404, 'idempotent', 1],
    [500, 'once', 1],
    [408, 'once', 1],
    [429, 'once', 3],
    [503, 'once', 3],
    [429, 'idempotent', 3],
  ] as const)(
    'HTTP %i under rule %s: %i attempts, then the last answer is returned',
    async (status, retry, attempts) => {
      const server = await scriptedServer(answer(status, 'no'));
      const response = await sendHttp(server.url, { method: 'POST' }, { ...base, retry });
      expect(response.status).toBe(status);
      expect(response.text()).toBe('no');
      expect(server.hits()).toBe(attempts);
    },
  );

  it('makes as many resends as configured', async () => {
    for (const retries of [0, 1, 4]) {
      const server = await scriptedServer(answer(503));
      await sendHttp(server.url, {}, { ...base, retries });
      expect(server.hits()).toBe(retries + 1);
    }
  });

  it('returns the first good answer after a refusal', async () => {
    const server = await scriptedServer((req, res, hit) =>
      answer(hit === 1 ? 503 : 200, hit === 1 ? '' : '{"ok":true}')(req, res),
    );
    const response = await sendHttp(server.url, {}, { ...base, retry: 'once' });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect(response.url).toBe(`${server.url}/`);
    expect(server.hits()).toBe(2);
  });
});

describe('sendHttp: Retry-After and the budget', () => {
  it('answers at once with the refusal when Retry-After asks for longer than the cap', async () => {
    const server = await scriptedServer(answer(503, '', { 'retry-after': '2' }));
    const started = Date.now();
    const response = await sendHttp(server.url, {}, { ...base, retryAfterCapMs: 1_500 });
    expect(response.status).toBe(503);
    expect(server.hits()).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits out a Retry-After up to the cap (10 s unless told)', async () => {
    const server = await scriptedServer((req, res, hit) =>
      answer(hit === 1 ? 429 : 200, '', hit === 1 ? { 'retry-after': '1' } : {})(req, res),
    );
    const started = Date.now();
    const response = await sendHttp(server.url, {}, { ...base, timeoutMs: 5_000 });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('answers with the refusal when the asked wait would not fit in the budget', async () => {
    const server = await scriptedServer(answer(503, '', { 'retry-after': '1' }));
    const response = await sendHttp(server.url, {}, { ...base, budgetMs: 800 });
    expect(response.status).toBe(503);
    expect(server.hits()).toBe(1);
  });

  it('resends only while another attempt with its time still fits in the budget', async () => {
    const tight = await scriptedServer(answer(503));
    expect((await sendHttp(tight.url, {}, { ...base, timeoutMs: 1_000, budgetMs: 1_000 })).status).toBe(503);
    expect(tight.hits()).toBe(1);
    const enough = await scriptedServer(answer(503));
    await sendHttp(enough.url, {}, { ...base, timeoutMs: 1_000, budgetMs: 1_000, resendNeedsMs: 10 });
    expect(enough.hits()).toBe(3);
  });

  it("gives a silent host three attempts' worth of time by default, each attempt its own deadline", async () => {
    const server = await scriptedServer(() => undefined);
    const started = Date.now();
    const error = await failure(sendHttp(server.url, {}, { ...base, timeoutMs: 300, retries: 5 }));
    expect(error.code).toBe('timeout');
    // After two 300 ms attempts, a third would end past 900 ms: it is not made.
    expect(server.hits()).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('cuts an attempt short at the end of the budget', async () => {
    const server = await scriptedServer(() => undefined);
    const started = Date.now();
    const error = await failure(sendHttp(server.url, {}, { ...base, timeoutMs: 5_000, budgetMs: 300, retries: 0 }));
    expect(error.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("names its own limit in a timeout, or the caller's error when it gives one", async () => {
    const server = await scriptedServer(() => undefined);
    const own = await failure(sendHttp(`${server.url}/x?token=secret`, {}, { ...base, timeoutMs: 200, retries: 0 }));
    expect(own.message).toBe(`test request: no complete answer from ${server.url} within 200 ms.`);
    const custom = new MailboxError({ code: 'timeout', message: 'the call ran out', hint: 'h' });
    const seen: unknown[] = [];
    const theirs = await failure(
      sendHttp(
        server.url,
        { method: 'POST' },
        { ...base, retry: 'once', timeoutMs: 200, timeoutError: (...args) => (seen.push(args.slice(0, 3)), custom) },
      ),
    );
    expect(theirs).toBe(custom);
    expect(seen).toEqual([['test request', server.url, true]]);
  });
});

describe('sendHttp: failures without an answer', () => {
  it('resends a request refused before it was sent, whatever the rule', async () => {
    for (const retry of ['once', 'idempotent'] as const) {
      const calls = { n: 0 };
      const error = await failure(
        sendHttp(
          'http://127.0.0.1:9/',
          { method: 'POST' },
          { ...base, retry, fetch: failingFetch('ECONNREFUSED', calls) },
        ),
      );
      expect(calls.n).toBe(3);
      expect(error.code).toBe('network');
      expect(error.hint).toBe(
        'Check the network connection, then try again. If it keeps failing, the operator checks the service URLs this client was started with (AGENT_MAILBOX_AUTH_URL / AGENT_MAILBOX_API_URL, or --auth-url / --api-url on its command line or in the server config of the host); a tool call cannot change them.',
      );
    }
  });

  it('never resends a POST under rule once after the connection broke, and says it may have acted', async () => {
    const calls = { n: 0 };
    const error = await failure(
      sendHttp(
        'http://127.0.0.1:9/',
        { method: 'POST' },
        { ...base, retry: 'once', fetch: failingFetch('ECONNRESET', calls, 'socket hang up') },
      ),
    );
    expect(calls.n).toBe(1);
    expect(error.message).toBe(
      'test request: the connection to http://127.0.0.1:9 failed (ECONNRESET: socket hang up).',
    );
    expect(error.hint).toMatch(
      /^The request may have reached the server before the connection broke, so it was not resent/,
    );
  });

  it('resends an idempotent request after a broken connection', async () => {
    const calls = { n: 0 };
    await failure(sendHttp('http://127.0.0.1:9/', {}, { ...base, fetch: failingFetch('ECONNRESET', calls) }));
    expect(calls.n).toBe(3);
  });

  it('tells a GET that timed out to check the host, and a POST under rule once that it may have acted', async () => {
    const server = await scriptedServer(() => undefined);
    const get = await failure(sendHttp(server.url, {}, { ...base, retry: 'once', timeoutMs: 200, retries: 0 }));
    expect(get.hint).toMatch(/^Check the network and that the host is up/);
    const idempotentPost = await failure(
      sendHttp(server.url, { method: 'POST' }, { ...base, timeoutMs: 200, retries: 0 }),
    );
    expect(idempotentPost.hint).toMatch(/^Check the network and that the host is up/);
    const post = await failure(sendHttp(server.url, { method: 'POST' }, { ...base, retry: 'once', timeoutMs: 200 }));
    expect(post.hint).toMatch(/^The request may still have taken effect, so it was not resent/);
    expect(server.hits()).toBe(3);
  });

  it('reports a real refused connection as a network error naming the host', async () => {
    const port = await closedPort();
    const error = await failure(sendHttp(`http://127.0.0.1:${port}/path?q=1`, {}, { ...base, retries: 0 }));
    expect(error.code).toBe('network');
    expect(error.message).toMatch(
      new RegExp(
        `^test request: the connection to http://127\\.0\\.0\\.1:${port} failed \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)\\.$`,
      ),
    );
  });

  it('does not start when already cancelled, and stops waiting between attempts when cancelled', async () => {
    const server = await scriptedServer(answer(503, '', { 'retry-after': '5' }));
    const error = await failure(sendHttp(server.url, {}, { ...base, signal: AbortSignal.abort() }));
    expect(error.code).toBe('cancelled');
    expect(server.hits()).toBe(0);

    const controller = new AbortController();
    const started = Date.now();
    const pending = sendHttp(server.url, {}, { ...base, timeoutMs: 20_000, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    expect((await failure(pending)).code).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.hits()).toBe(1);
  });

  it("passes on an error that is not the transport's own", async () => {
    const bug = new RangeError('a bug in the fetch');
    const fetch: FetchFunction = async () =>
      ({
        status: 200,
        headers: new Headers(),
        url: '',
        body: {
          getReader: () => {
            throw bug;
          },
        },
      }) as unknown as Response;
    await expect(sendHttp('http://127.0.0.1:9/', {}, { ...base, fetch })).rejects.toMatchObject({ code: 'network' });
  });
});

describe('sendHttp: bodies', () => {
  it('caps an error body at 64 KiB even when a success may be larger', async () => {
    const big = 'x'.repeat(70 * 1024);
    const ok = await scriptedServer(answer(200, big));
    expect((await sendHttp(ok.url, {}, base)).size).toBe(big.length);
    const bad = await scriptedServer(answer(500, big));
    const error = await failure(sendHttp(bad.url, {}, { ...base, retries: 0 }));
    expect(error.code).toBe('response_too_large');
    expect(error.message).toContain('65536 bytes');
    const small = await scriptedServer(answer(500, 'x'.repeat(2_000)));
    expect((await failure(sendHttp(small.url, {}, { ...base, retries: 0, maxBytes: 1_000 }))).message).toContain(
      '1000 bytes',
    );
  });

  it('writes a successful download to the file and keeps an error body in memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'send-http-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const handle = await open(join(dir, 'download'), 'w+');
    onTestFinished(() => handle.close());
    const ok = await scriptedServer(answer(200, 'file content'));
    const done = await sendHttp(ok.url, {}, { ...base, target: { kind: 'file', handle } });
    expect(done.size).toBe(12);
    expect(done.body.length).toBe(0);
    expect(await readFile(join(dir, 'download'), 'utf8')).toBe('file content');
    const missing = await scriptedServer(answer(404, 'no such blob'));
    const refused = await sendHttp(missing.url, {}, { ...base, target: { kind: 'file', handle } });
    expect(refused.text()).toBe('no such blob');
    expect(await readFile(join(dir, 'download'), 'utf8')).toBe('file content');
  });

  it('follows redirects unless told not to', async () => {
    const server = await scriptedServer((req, res) =>
      req.url === '/from' ? answer(302, '', { location: '/to' })(req, res) : answer(200, 'here')(req, res),
    );
    const followed = await sendHttp(`${server.url}/from`, {}, base);
    expect(followed.text()).toBe('here');
    expect(followed.url).toBe(`${server.url}/to`);
    expect((await sendHttp(`${server.url}/from`, { redirect: 'manual' }, base)).status).toBe(302);
  });
});

describe('sendHttp: what it logs', () => {
  it('logs each answer with method, URL, status and size, and each resend with its reason', async () => {
    const lines: string[] = [];
    const log: Logger = {
      error: () => undefined,
      warn: () => undefined,
      info: () => undefined,
      debug: (m) => lines.push(m),
    };
    const server = await scriptedServer((req, res, hit) => answer(hit === 1 ? 503 : 200, 'ok')(req, res));
    await sendHttp(`${server.url}/a`, { method: 'POST' }, { ...base, log });
    expect(lines[0]).toMatch(new RegExp(`^POST ${server.url}/a → HTTP 503, 2 bytes in \\d+ ms \\(test request\\)$`));
    expect(lines[1]).toMatch(/^test request failed \(HTTP 503\); resend 1\/2 in \d+ ms$/);
    expect(lines[2]).toMatch(new RegExp(`^POST ${server.url}/a → HTTP 200, 2 bytes in \\d+ ms \\(test request\\)$`));
    lines.length = 0;
    await sendHttp(`${server.url}/b`, {}, { ...base, what: `GET ${server.url}/b`, log });
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^GET ${server.url}/b → HTTP 200, 2 bytes in \\d+ ms$`))]);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds (spaces around them too) and HTTP dates, never a negative wait', () => {
    expect(parseRetryAfter(' 2 ')).toBe(2000);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter(new Date(1_000).toUTCString(), 4_000)).toBe(0);
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('sendHttp: cancellation and waits, exactly', () => {
  const debugLog = (lines: string[], onLine: (line: string) => void = () => undefined): Logger => ({
    error: () => undefined,
    warn: () => undefined,
    info: () => undefined,
    debug: (m) => (lines.push(m), onLine(m)),
  });

  it('ends a hung POST at once when the caller cancels, as cancelled, never as a broken connection', async () => {
    const server = await scriptedServer(() => undefined);
    const controller = new AbortController();
    const started = Date.now();
    const pending = sendHttp(
      server.url,
      { method: 'POST', body: 'x' },
      { ...base, retry: 'once', timeoutMs: 20_000, signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('stop')), 200);
    const error = await failure(pending);
    expect(error.code).toBe('cancelled');
    expect(error.cause).toEqual(new Error('stop'));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.hits()).toBe(1);
  });

  it('stops before the wait when the caller cancelled as the refusal arrived', async () => {
    const server = await scriptedServer(answer(503, '', { 'retry-after': '5' }));
    const controller = new AbortController();
    const lines: string[] = [];
    const started = Date.now();
    const error = await failure(
      sendHttp(
        server.url,
        {},
        { ...base, timeoutMs: 5_000, signal: controller.signal, log: debugLog(lines, () => controller.abort()) },
      ),
    );
    expect(error.code).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.hits()).toBe(1);
  });

  it('answers at once when Retry-After asks for more than the default cap of 10 s', async () => {
    const server = await scriptedServer(answer(503, '', { 'retry-after': '11' }));
    const started = Date.now();
    const response = await sendHttp(server.url, {}, { ...base, timeoutMs: 20_000 });
    expect(response.status).toBe(503);
    expect(server.hits()).toBe(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('backs off from the base step, doubling each resend, with jitter between half and the whole step', async () => {
    for (const [random, waits] of [
      [0, ['20', '40']],
      [1, ['40', '80']],
      [0.5, ['30', '60']],
    ] as const) {
      const spy = vi.spyOn(Math, 'random').mockReturnValue(random);
      onTestFinished(() => spy.mockRestore());
      const server = await scriptedServer(answer(503));
      const lines: string[] = [];
      await sendHttp(server.url, {}, { ...base, retryBaseMs: 40, log: debugLog(lines) });
      spy.mockRestore();
      expect(lines.filter((l) => l.includes('resend')).map((l) => /in (\d+) ms$/.exec(l)?.[1])).toEqual(waits);
    }
  });

  it('backs off 250 ms at first unless told', async () => {
    const spy = vi.spyOn(Math, 'random').mockReturnValue(1);
    onTestFinished(() => spy.mockRestore());
    const server = await scriptedServer((req, res, hit) => answer(hit === 1 ? 503 : 200)(req, res));
    const lines: string[] = [];
    const { retryBaseMs: _, ...defaults } = base;
    await sendHttp(server.url, {}, { ...defaults, log: debugLog(lines) });
    expect(lines[1]).toMatch(/resend 1\/2 in 250 ms$/);
  });

  it("passes on an error thrown by the caller's own timeout error", async () => {
    const server = await scriptedServer(() => undefined);
    const bug = new RangeError('a bug in the caller');
    await expect(
      sendHttp(
        server.url,
        {},
        {
          ...base,
          timeoutMs: 100,
          timeoutError: () => {
            throw bug;
          },
        },
      ),
    ).rejects.toBe(bug);
  });

  it('caps a 3xx answer it does not follow like an error answer', async () => {
    const server = await scriptedServer(answer(300, 'x'.repeat(70 * 1024)));
    const error = await failure(sendHttp(server.url, {}, { ...base, retries: 0 }));
    expect(error.code).toBe('response_too_large');
  });
});
