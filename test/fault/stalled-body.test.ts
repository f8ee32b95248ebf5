import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { wordInputs } from '../../src/render/describe-next.js';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../src/errors.js';
import { Deadline } from '../../src/gate/deadline.js';
import { sendToService } from '../../src/gate/send-to-service.js';
import { httpRequest } from '../../src/http/http-request.js';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';

/**
 * A host that answers the head of a response and then stops sending mid-body (or sends a byte now
 * and then, forever). The deadline covers the whole body, not only the head: the call still ends
 * when its time is up, says it timed out, and a POST that may have acted is not resent.
 */

type Stall = (res: ServerResponse) => void;

/** Headers and a first piece of a body that promises more, then silence. */
const stallAfterPart: Stall = (res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10000' });
  res.write('{"methodResponses":[["Email/get",{"list":[');
};

/** Chunked: headers and one chunk, then silence. */
const stallChunked: Stall = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"partial":');
};

/** One byte every 50 ms for ever: no silence long enough for an idle timer, only a deadline ends it. */
const drip: Stall = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
  res.on('close', () => clearInterval(timer));
};

async function stallingHost(stall: Stall): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits += 1;
    req.resume();
    req.on('end', () => stall(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanUpAfter(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

/** The call's outcome, or a failure naming how long it hung: a broken deadline must fail the test, not time it out. */
async function settledWithin<T>(call: Promise<T>, ms: number): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  let guard: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    guard = setTimeout(
      () => reject(new Error(`the call was still waiting after ${ms} ms: its deadline did not end it`)),
      ms,
    );
  });
  try {
    const error = await Promise.race([
      call.then(
        () => undefined,
        (e: unknown) => e,
      ),
      hung,
    ]);
    return { error, ms: Date.now() - started };
  } finally {
    clearTimeout(guard);
  }
}

describe('a host that sends headers and part of a body, then stalls', () => {
  it.each([
    ['stops after part of a declared length', stallAfterPart],
    ['stops after one chunk', stallChunked],
    ['drips a byte every 50 ms', drip],
  ])('ends a GET at its deadline when the host %s', async (_name, stall) => {
    const host = await stallingHost(stall);
    const { error, ms } = await settledWithin(
      httpRequest(`${host.url}/.well-known/jmap`, {}, { timeoutMs: 400, retries: 0, retry: 'idempotent' }),
      5_000,
    );
    expect(error).toBeInstanceOf(MailboxError);
    expect(error).toMatchObject({ code: 'timeout' });
    expect((error as MailboxError).message).toMatch(/no complete answer from http:\/\/127\.0\.0\.1:\d+ within 400 ms/);
    expect(ms).toBeGreaterThanOrEqual(390);
    expect(ms).toBeLessThan(3_000);
    expect(host.hits()).toBe(1);
  });

  it('ends a POST that may have acted at its deadline and never resends it', async () => {
    const host = await stallingHost(stallAfterPart);
    const { error, ms } = await settledWithin(
      httpRequest(
        `${host.url}/jmap/`,
        { method: 'POST', body: '{}' },
        { timeoutMs: 400, retry: 'once', retryBaseMs: 10 },
      ),
      5_000,
    );
    expect(error).toMatchObject({ code: 'timeout' });
    expect((error as MailboxError).hint).toMatch(/may still have taken effect, so it was not resent/);
    expect(ms).toBeLessThan(3_000);
    expect(host.hits()).toBe(1);
  });

  it("ends the whole call at the call's deadline when the stall comes through the gate", async () => {
    const host = await stallingHost(drip);
    const started = Date.now();
    const deadline = Deadline.start({ timeoutMs: 600 });
    const call = sendToService(
      `${host.url}/jmap/`,
      { method: 'POST', body: '{}' },
      { deadline, what: 'JMAP request', retry: 'once', maxBytes: 1_000_000 },
    );
    const { error } = await settledWithin(call, 5_000);
    const ms = Date.now() - started;
    expect(error).toMatchObject({ code: 'timeout' });
    expect(wordInputs((error as MailboxError).message, 'cli')).toMatch(
      /^JMAP request: no complete answer from http:\/\/127\.0\.0\.1:\d+ within 600 ms, the time limit of the whole call \(--timeout-ms \/ AGENT_MAILBOX_TIMEOUT_MS\)/,
    );
    expect(ms).toBeGreaterThanOrEqual(600);
    expect(ms).toBeLessThan(3_000);
    expect(host.hits()).toBe(1);
  });
});
