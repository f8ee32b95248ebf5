import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { MailboxError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { runJmapRequest, type JmapRequestInput, type JmapRequestResult } from '../../src/request/run-jmap-request.js';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/**
 * The receive screen's own lookups (sender facts a response lacks) go through the gate like any
 * read, under the call's deadline: when one fails or hangs, the read fails and shows nothing; a
 * message's facts are fetched once per process; with no receive rule nothing is looked up; a
 * broken policy file stops every read.
 */

const lookupSignature = '"properties":["id","from","sender","header:Authentication-Results:asRaw:all"]';

/** A fetch that counts the screen's lookups and can answer them itself. */
function watchedFetch(answerLookup?: (init: RequestInit | undefined) => Promise<Response>): {
  fetch: typeof fetch;
  lookups: () => number;
} {
  let lookups = 0;
  return {
    lookups: () => lookups,
    fetch: (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes(lookupSignature)) {
        lookups += 1;
        if (answerLookup) return answerLookup(init);
      }
      return fetch(input, init);
    },
  };
}

let sandbox: RunningSandbox;
let registry: ObservableAccountRegistry;
let work: string;
let inbox: Account;
const ids = { spam: '', fine: '' };

const run = (
  input: JmapRequestInput,
  extra: Partial<Parameters<typeof runJmapRequest>[2]> = {},
): Promise<JmapRequestResult> =>
  runJmapRequest(inbox, input, { signal: AbortSignal.timeout(30_000), log: silentLogger, timeoutMs: 10_000, ...extra });
const byId = (): JmapRequestInput => ({
  ops: [['Email/get', { accountId: '$ACCOUNT_ID', ids: [ids.spam, ids.fine], properties: ['subject'] }, 'g']],
});
const failure = (promise: Promise<unknown>): Promise<MailboxError> =>
  promise.then(
    () => Promise.reject(new Error('it did not fail')),
    (error: unknown) => error as MailboxError,
  );

beforeAll(async () => {
  sandbox = await startTestSandbox();
  work = await mkdtemp(join(tmpdir(), 'receive-screen-'));
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
  inbox = registry.open(join(work, 'inbox'));
  const address = (await inbox.register({ username: `screen-${process.pid % 1000}`, watch: 'on-demand' })).inbox;
  const smtp = nodemailer.createTransport({
    host: '127.0.0.1',
    port: sandbox.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  await smtp.sendMail({ from: 'offers@spam.test', to: address, subject: 'Spam', text: 'buy' });
  await smtp.sendMail({ from: 'ana@fine.test', to: address, subject: 'Fine', text: 'hello' });
  smtp.close();
  const listed = await pollUntil(async () => {
    const result = await run({ ops_file: 'list_inbox' });
    const list = (result.response?.methodResponses[1]?.[1].list ?? []) as { id: string; subject: string }[];
    return list.length === 2 ? list : undefined;
  });
  ids.spam = listed.find((m) => m.subject === 'Spam')?.id ?? '';
  ids.fine = listed.find((m) => m.subject === 'Fine')?.id ?? '';
});
afterAll(async () => {
  registry?.close();
  await rm(work, { recursive: true, force: true });
});

describe('the receive screen', () => {
  it('looks nothing up and judges nothing when no rule restricts receiving', async () => {
    const watched = watchedFetch();
    const result = await run(byId(), { fetch: watched.fetch });
    expect(watched.lookups()).toBe(0);
    expect(result.held).toBeUndefined();
    expect((result.response?.methodResponses[0]?.[1].list as unknown[]).length).toBe(2);
  });

  it('fails the read, showing nothing, when its lookup gets an error, and when its lookup hangs past the deadline', async () => {
    await writeFile(join(inbox.dir, 'policy.json'), JSON.stringify({ version: 1, receive: { block: ['spam.test'] } }), {
      mode: 0o600,
    });
    const errored = watchedFetch(
      async () =>
        new Response(JSON.stringify({ methodResponses: [['error', { type: 'serverFail' }, 'f0']] }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
    );
    const error = await failure(run(byId(), { fetch: errored.fetch }));
    expect(error).toBeInstanceOf(MailboxError);
    expect(error.code).toBe('jmap_request_error');
    expect(error.message).toBe(
      "Checking senders against the operator's receive rules failed: Email/get answered serverFail.",
    );
    const hung = watchedFetch(
      (init) => new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
    );
    const started = Date.now();
    const timedOut = await failure(run(byId(), { fetch: hung.fetch, timeoutMs: 1_500 }));
    expect(timedOut.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("fetches a message's sender facts once per process, then judges it from memory", async () => {
    await writeFile(join(inbox.dir, 'policy.json'), JSON.stringify({ version: 1, receive: { block: ['spam.test'] } }), {
      mode: 0o600,
    });
    const first = watchedFetch();
    const held = await run(byId(), { fetch: first.fetch });
    expect(held.held).toMatchObject({
      count: 1,
      requested: [ids.spam],
      rules: [{ layer: 'inbox', rule: 'receive.block', count: 1 }],
    });
    expect(held.failures).toEqual([expect.objectContaining({ type: 'heldByPolicy', recordId: ids.spam })]);
    expect(first.lookups()).toBe(1);
    const again = watchedFetch();
    await run(byId(), { fetch: again.fetch });
    expect(again.lookups()).toBe(0);
  });

  it('judges a message Email/parse reads from a blob by its own headers', async () => {
    await rm(join(inbox.dir, 'policy.json'), { force: true });
    const blobs = await run({
      ops: [['Email/get', { accountId: '$ACCOUNT_ID', ids: [ids.spam, ids.fine], properties: ['id', 'blobId'] }, 'b']],
    });
    const blobOf = new Map(
      (blobs.response?.methodResponses[0]?.[1].list as { id: string; blobId: string }[]).map((e) => [e.id, e.blobId]),
    );
    await writeFile(join(inbox.dir, 'policy.json'), JSON.stringify({ version: 1, receive: { block: ['spam.test'] } }), {
      mode: 0o600,
    });
    const parsed = await run({
      ops: [
        [
          'Email/parse',
          { accountId: '$ACCOUNT_ID', blobIds: [blobOf.get(ids.spam), blobOf.get(ids.fine)], properties: ['subject'] },
          'p',
        ],
      ],
    });
    const answer = parsed.response?.methodResponses[0]?.[1] as {
      parsed: Record<string, { subject: string }>;
      notFound: string[];
    };
    expect(Object.values(answer.parsed).map((m) => m.subject)).toEqual(['Fine']);
    expect(answer.notFound).toEqual([blobOf.get(ids.spam)]);
    expect(JSON.stringify(parsed)).not.toContain('Spam');
  });

  it('stops every read under a policy file it cannot read, naming the file', async () => {
    await writeFile(join(inbox.dir, 'policy.json'), '{"version": 1, "receive": {"mode": "allow-all"}}', {
      mode: 0o600,
    });
    const error = await failure(run({ ops_file: 'list_inbox' }));
    expect(error.code).toBe('policy_unreadable');
    expect(error.message).toContain(join(inbox.dir, 'policy.json'));
    await rm(join(inbox.dir, 'policy.json'));
  });
});
