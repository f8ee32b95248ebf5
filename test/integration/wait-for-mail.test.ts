import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { Deadline } from '../../src/gate/deadline.js';
import { silentLogger } from '../../src/log.js';
import { runJmapRequest, type JmapRequestContext, type JmapRequestResult } from '../../src/request/run-jmap-request.js';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/**
 * wait_for_mail through the real account layer against the embedded sandbox: push, the polling
 * fallback (push refused, or a stream that hangs, floods or resets), the cursor rules and cancel.
 */

type Email = { id: string; subject: string; from: { email: string }[] };

let sandbox: RunningSandbox;
let registry: ObservableAccountRegistry;
let work: string;
let seq = 0;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  work = await mkdtemp(join(tmpdir(), 'wait-for-mail-'));
  registry = createAccountRegistry({
    configInputs: {
      flags: {
        authUrl: sandbox.authUrl,
        apiUrl: sandbox.apiUrl,
        scryptSalt: sandbox.salt,
        inboxDomain: sandbox.domain,
      },
      env: {},
    },
    log: silentLogger,
    powWorkers: 1,
  });
});
afterAll(async () => {
  registry?.close();
  await rm(work, { recursive: true, force: true });
});

/** A fresh inbox per test, so no test depends on another's cursor. */
async function newInbox(): Promise<{ account: Account; address: string }> {
  seq += 1;
  const account = registry.open(join(work, `inbox${seq}`));
  const address = (await account.register({ username: `waiter-${seq}-${process.pid % 1000}`, watch: 'on-demand' }))
    .inbox;
  return { account, address };
}

async function deliver(to: string, subject: string, from = 'Carol <carol@outside.test>'): Promise<number> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: sandbox.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  await transport.sendMail({ from, to, subject, text: `body of ${subject}` });
  transport.close();
  return performance.now();
}

function wait(
  account: Account,
  vars: Record<string, unknown>,
  extra: Partial<JmapRequestContext> = {},
): Promise<JmapRequestResult> {
  return runJmapRequest(
    account,
    { ops_file: 'wait_for_mail', vars },
    { signal: AbortSignal.timeout(60_000), log: silentLogger, timeoutMs: 5000, ...extra },
  );
}

function listed(result: JmapRequestResult): Email[] {
  return (
    (result.response?.methodResponses.find(([name]) => name === 'Email/get')?.[1] as { list?: Email[] } | undefined)
      ?.list ?? []
  );
}

/** A fetch that answers the EventSource URL itself with `stream` and passes everything else on. */
function withEventStream(stream: () => Response): typeof fetch {
  return (input, init) => (String(input).includes('/eventsource') ? Promise.resolve(stream()) : fetch(input, init));
}

/**
 * A fetch that counts the waiter's looks for new mail (its Email/changes calls, answered), so a
 * test delivers once the waiter really is past its start state instead of after a guessed sleep.
 */
function countLooks(inner: typeof fetch = fetch): { fetch: typeof fetch; looked: (n: number) => Promise<void> } {
  let looks = 0;
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  const counted: typeof fetch = async (input, init) => {
    const response = await inner(input, init);
    if (typeof init?.body === 'string' && init.body.includes('"Email/changes"')) {
      looks += 1;
      for (const w of waiting.filter((w) => w.n <= looks)) w.resolve();
    }
    return response;
  };
  return {
    fetch: counted,
    looked: (n) => (looks >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
  };
}

/**
 * A clock for waits whose timeout is not what the test is about: it reads the start time once,
 * then the wait's end, so the wait looks once and ends without sleeping through its timeout.
 */
function endAfterFirstLook(): { now: () => number } {
  const t0 = Date.now();
  let calls = 0;
  return { now: () => (calls++ === 0 ? t0 : t0 + 3600_000) };
}

type Controller = ReadableStreamDefaultController<Uint8Array>;

function sseResponse(source: { start?: (c: Controller) => void; pull?: (c: Controller) => void }): Response {
  return new Response(new ReadableStream(source), { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

describe('wait_for_mail', () => {
  it('returns within 1.5 s of a delivery by push, and does not return it again', async () => {
    const { account, address } = await newInbox();
    const looks = countLooks();
    const started = wait(account, { TIMEOUT_SECONDS: 30 }, { fetch: looks.fetch });
    await looks.looked(1);
    const deliveredAt = await deliver(address, 'pushed one');
    const result = await started;
    const latency = performance.now() - deliveredAt;
    expect(result.ok).toBe(true);
    expect(result.waited?.mode).toBe('push');
    expect(listed(result).map((e) => e.subject)).toEqual(['pushed one']);
    expect(result.summary).toMatch(/^OK: 1 new message from others after .* push/);
    expect(result.untrusted).toContain('response.methodResponses[1][1].list[*].subject');
    expect(latency).toBeLessThan(1500);

    const again = await wait(account, { TIMEOUT_SECONDS: 1 }, { wake: endAfterFirstLook() });
    expect(listed(again)).toEqual([]);
    expect(again.summary).toMatch(/no new mail in 1 s/);
    // list_new shares the cursor: nothing new there either.
    const listNew = await runJmapRequest(
      account,
      { ops_file: 'list_new' },
      { signal: AbortSignal.timeout(10_000), log: silentLogger },
    );
    expect(listed(listNew)).toEqual([]);
  });

  it('polls when push is refused, still within 1.5 s, and says why', async () => {
    const { account, address } = await newInbox();
    const looks = countLooks(withEventStream(() => new Response('no', { status: 404 })));
    const started = wait(account, { TIMEOUT_SECONDS: 30 }, { fetch: looks.fetch });
    // After the third look the poll interval has grown to its last, longest value.
    await looks.looked(3);
    const deliveredAt = await deliver(address, 'polled one');
    const result = await started;
    expect(performance.now() - deliveredAt).toBeLessThan(1500);
    expect(result.waited).toMatchObject({ mode: 'polling', fallbackReason: expect.stringContaining('HTTP 404') });
    expect(result.summary).toMatch(/polling Email\/changes/);
    expect(listed(result).map((e) => e.subject)).toEqual(['polled one']);
  });

  it('ends at the timeout with ok and "no new mail", and reports progress as it waits', async () => {
    const { account } = await newInbox();
    const updates: string[] = [];
    const t0 = performance.now();
    const result = await wait(account, { TIMEOUT_SECONDS: 2 }, { progress: (u) => updates.push(u.message) });
    const elapsed = performance.now() - t0;
    expect(result.ok).toBe(true);
    expect(result.summary).toMatch(/^OK: no new mail in 2 s \(waited by push/);
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(4000);
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates[0]).toMatch(/Waiting for new mail \(push\): 0 of 2 s/);
  });

  it('clamps the wait to the per-call budget and says to call again', async () => {
    const { account } = await newInbox();
    const result = await wait(
      account,
      { TIMEOUT_SECONDS: 600 },
      { deadline: Deadline.start({ timeoutMs: 5000, budgetMs: 7000 }), wake: endAfterFirstLook() },
    );
    expect(result.waited).toMatchObject({ seconds: 2, clamped: true });
    expect(result.summary).toMatch(/no new mail in 2 s .*call again to keep waiting/);
  });

  it('refuses a timeout beyond an hour before waiting', async () => {
    const { account } = await newInbox();
    await expect(wait(account, { TIMEOUT_SECONDS: 3601 })).rejects.toMatchObject({ code: 'vars_invalid' });
  });

  it('with FROM, returns only matching mail and keeps the other new mail for list_new', async () => {
    const { account, address } = await newInbox();
    await runJmapRequest(account, { ops_file: 'list_new' }, { signal: AbortSignal.timeout(10_000), log: silentLogger });
    const looks = countLooks();
    const started = wait(account, { TIMEOUT_SECONDS: 30, FROM: 'dave@' }, { fetch: looks.fetch });
    await looks.looked(1);
    await deliver(address, 'from carol', 'Carol <carol@outside.test>');
    await deliver(address, 'from dave', 'Dave <dave@outside.test>');
    const result = await started;
    expect(listed(result).map((e) => e.subject)).toEqual(['from dave']);
    expect(result.notes?.join(' ')).toMatch(/1 other new message from others did not match the filter/);

    // The next wait does not return dave's mail again …
    const again = await wait(account, { TIMEOUT_SECONDS: 1 }, { wake: endAfterFirstLook() });
    expect(listed(again)).toEqual([]);
    // … and list_new still shows carol's.
    const listNew = await runJmapRequest(
      account,
      { ops_file: 'list_new' },
      { signal: AbortSignal.timeout(10_000), log: silentLogger },
    );
    expect(listed(listNew).map((e) => e.subject)).toContain('from carol');
  });

  it('before list_new has ever run, returns the unread mail already in the Inbox at once (not read mail), and not again', async () => {
    const { account, address } = await newInbox();
    await deliver(address, 'early one');
    await deliver(address, 'early two');
    await deliver(address, 'already read');
    const found = await runJmapRequest(
      account,
      {
        ops: [
          [
            'Email/query',
            { accountId: '$ACCOUNT_ID', filter: { inMailbox: '$INBOX_MAILBOX_ID', subject: 'already read' } },
            'q',
          ],
        ],
      },
      { signal: AbortSignal.timeout(10_000), log: silentLogger },
    );
    const readId = (found.response?.methodResponses[0]?.[1] as { ids: string[] }).ids[0];
    expect(readId).toBeDefined();
    const marked = await runJmapRequest(
      account,
      { ops_file: 'mark_read', vars: { MAIL_ID: readId } },
      { signal: AbortSignal.timeout(10_000), log: silentLogger },
    );
    expect(marked.ok).toBe(true);

    // A clock that ends the wait after its first look: the mail must come from that look, not a later delivery.
    const result = await wait(account, { TIMEOUT_SECONDS: 30 }, { wake: endAfterFirstLook() });
    expect(
      listed(result)
        .map((e) => e.subject)
        .sort(),
    ).toEqual(['early one', 'early two']);
    expect(result.summary).toMatch(/^OK: 2 new messages from others/);

    const again = await wait(account, { TIMEOUT_SECONDS: 1 }, { wake: endAfterFirstLook() });
    expect(listed(again)).toEqual([]);
    const listNew = await runJmapRequest(
      account,
      { ops_file: 'list_new' },
      { signal: AbortSignal.timeout(10_000), log: silentLogger },
    );
    expect(listed(listNew)).toEqual([]);
  });

  it('before list_new has ever run, with FROM, returns only the matching unread mail and says what it passed over', async () => {
    const { account, address } = await newInbox();
    await deliver(address, 'early carol', 'Carol <carol@outside.test>');
    await deliver(address, 'early dave', 'Dave <dave@outside.test>');
    const result = await wait(account, { TIMEOUT_SECONDS: 30, FROM: 'dave@' }, { wake: endAfterFirstLook() });
    expect(listed(result).map((e) => e.subject)).toEqual(['early dave']);
    expect(result.notes?.join(' ')).toMatch(
      /1 other unread message was already in the Inbox and did not match the filter\. list_inbox shows them all\./,
    );
  });

  it('stops at once when cancelled', async () => {
    const { account } = await newInbox();
    const controller = new AbortController();
    const looks = countLooks();
    const started = wait(account, { TIMEOUT_SECONDS: 30 }, { signal: controller.signal, fetch: looks.fetch });
    await looks.looked(1);
    const t0 = performance.now();
    controller.abort();
    await expect(started).rejects.toMatchObject({ code: 'cancelled' });
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('wait_for_mail against a faulty event stream', () => {
  const streams: Record<string, () => Response> = {
    // Head sent, then silence: no event, no ping.
    hangs: () => sseResponse({ start: (c: Controller) => c.enqueue(new TextEncoder().encode(': hello\n\n')) }),
    // One event that never ends: 10 MB of data line, far past the per-event cap.
    floods: () => {
      let sent = 0;
      const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
      return sseResponse({
        start: (c: Controller) => c.enqueue(new TextEncoder().encode('event: state\ndata: ')),
        pull: (c: Controller) => {
          sent += chunk.byteLength;
          if (sent > 10 * 1024 * 1024) c.close();
          else c.enqueue(chunk);
        },
      });
    },
    // A ping, then the connection breaks.
    resets: () =>
      sseResponse({
        start: (c: Controller) => {
          c.enqueue(new TextEncoder().encode('event: ping\ndata: {"interval":1}\n\n'));
          setTimeout(() => c.error(new Error('connection reset')), 200);
        },
      }),
  };

  for (const [name, stream] of Object.entries(streams)) {
    it(`falls back to polling when the stream ${name}, and still sees the delivery`, async () => {
      const { account, address } = await newInbox();
      const heapBefore = process.memoryUsage().heapUsed;
      const looks = countLooks(withEventStream(stream));
      const started = wait(account, { TIMEOUT_SECONDS: 30 }, { fetch: looks.fetch, wake: { pingSeconds: 1 } });
      // The stream never reports a state change, so a second look means the waiter fell back to
      // polling (pingSeconds 1: a silent stream counts as dead after 3 s).
      await looks.looked(2);
      const deliveredAt = await deliver(address, `after a stream that ${name}`);
      const result = await started;
      expect(result.waited?.mode).toBe('polling');
      expect(result.waited?.fallbackReason).toMatch(
        name === 'hangs' ? /idle/ : name === 'floods' ? /event_too_large/ : /network|ended/,
      );
      expect(listed(result).map((e) => e.subject)).toEqual([`after a stream that ${name}`]);
      expect(performance.now() - deliveredAt).toBeLessThan(1500);
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(8 * 1024 * 1024);
    });
  }

  it('ends by its timeout when the stream hangs past it', async () => {
    const { account } = await newInbox();
    const t0 = performance.now();
    const result = await wait(
      account,
      { TIMEOUT_SECONDS: 2 },
      { fetch: withEventStream(streams.hangs!), wake: { pingSeconds: 30 } },
    );
    expect(result.summary).toMatch(/no new mail in 2 s/);
    expect(performance.now() - t0).toBeLessThan(4000);
  });
});
