import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { MailboxError } from '../../src/errors.js';
import type { Check, CheckContext, Outgoing } from '../../src/gate/outgoing.js';
import { silentLogger } from '../../src/log.js';
import { runJmapRequest, type JmapRequestInput, type JmapRequestResult } from '../../src/request/run-jmap-request.js';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { wake } from '../../src/watch/wake.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/**
 * The check stage is where the operator's rules will be enforced, so it must see everything that
 * leaves for the service: each batch of every preset step and each upload, in the order they go
 * out, with who is sending. A recording check, injected through the context, shows it does.
 */

interface Seen {
  what: string;
  context: Pick<CheckContext, 'credentialsDir' | 'frontDoor' | 'isWake'>;
}

/** A check that lets everything through and writes down what it saw. */
function recordingCheck(): { check: Check; seen: Seen[]; outgoing: Outgoing[] } {
  const seen: Seen[] = [];
  const outgoing: Outgoing[] = [];
  const check: Check = async (item, context) => {
    outgoing.push(item);
    const what =
      item.kind === 'batch'
        ? `batch ${item.request.methodCalls.map(([method]) => method).join(' + ')}`
        : `upload ${item.type} ${item.source.path}`;
    seen.push({
      what,
      context: { credentialsDir: context.credentialsDir, frontDoor: context.frontDoor, isWake: context.isWake },
    });
  };
  return { check, seen, outgoing };
}

/** A fetch that writes down every request body that left the machine. */
function sentBodies(): { fetch: typeof fetch; bodies: string[] } {
  const bodies: string[] = [];
  return {
    bodies,
    fetch: (input, init) => {
      if (typeof init?.body === 'string') bodies.push(init.body);
      return fetch(input, init);
    },
  };
}

let sandbox: RunningSandbox;
let registry: ObservableAccountRegistry;
let work: string;
let alice: Account;
let bob: Account;
let aliceAddress: string;
let bobAddress: string;

const run = (
  account: Account,
  input: JmapRequestInput,
  extra: Partial<Parameters<typeof runJmapRequest>[2]> = {},
): Promise<JmapRequestResult> =>
  runJmapRequest(account, input, {
    signal: AbortSignal.timeout(30_000),
    log: silentLogger,
    timeoutMs: 10_000,
    ...extra,
  });

beforeAll(async () => {
  sandbox = await startTestSandbox();
  work = await mkdtemp(join(tmpdir(), 'check-stage-'));
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
  alice = registry.open(join(work, 'alice'));
  bob = registry.open(join(work, 'bob'));
  aliceAddress = (await alice.register({ username: `check-alice-${process.pid % 1000}`, watch: 'on-demand' })).inbox;
  bobAddress = (await bob.register({ username: `check-bob-${process.pid % 1000}`, watch: 'on-demand' })).inbox;
});
afterAll(async () => {
  registry?.close();
  await rm(work, { recursive: true, force: true });
});

describe('the check stage', () => {
  it('sees each upload, then the batch that sends them, in order, with the bytes, the type and the file they came from', async () => {
    const { check, seen, outgoing } = recordingCheck();
    const notes = join(work, 'notes.txt');
    const table = join(work, 'table.csv');
    await writeFile(notes, 'meeting notes');
    await writeFile(table, 'a,b\n1,2\n');
    const result = await run(
      alice,
      {
        ops_file: 'send_mail_blob_attachment',
        vars: { TO: bobAddress, SUBJECT: 'Files', BODY: 'Two files.' },
        attachments: [notes, table],
      },
      { check, frontDoor: 'mcp' },
    );
    expect(result.ok).toBe(true);
    const context = { credentialsDir: alice.dir, frontDoor: 'mcp', isWake: false };
    expect(seen).toEqual([
      { what: `upload text/plain ${notes}`, context },
      { what: `upload text/csv ${table}`, context },
      { what: 'batch Email/set + EmailSubmission/set', context },
    ]);
    const first = outgoing[0];
    expect(first?.kind === 'upload' && Buffer.from(first.bytes).toString('utf8')).toBe('meeting notes');
    // The batch the check saw is the one that went out: the blob ids of the uploads are in it.
    const batch = outgoing[2];
    expect(batch?.kind === 'batch' && JSON.stringify(batch.request)).toContain(String(result.attachments?.[1]?.blobId));
  });

  it('sees every step of a multi-step preset: reply reads, then sends, then marks the original answered', async () => {
    await run(bob, {
      ops_file: 'send_mail',
      vars: { TO: aliceAddress, SUBJECT: 'Question for the check', BODY: 'Are you there?' },
    });
    const original = await pollUntil(
      async () =>
        (
          (await run(alice, { ops_file: 'list_inbox' })).response?.methodResponses.find(([, , id]) => id === 'get')?.[1]
            .list as { id: string; subject: string }[]
        ).find((e) => e.subject === 'Question for the check'),
      10_000,
      "the question in alice's inbox",
    );
    const { check, seen } = recordingCheck();
    const result = await run(alice, { ops_file: 'reply', vars: { MAIL_ID: original.id, BODY: 'Yes.' } }, { check });
    expect(result.ok).toBe(true);
    expect(seen.map((s) => s.what)).toEqual([
      'batch Email/get',
      'batch Email/set + EmailSubmission/set',
      'batch Email/set',
    ]);
    expect(seen.every((s) => s.context.frontDoor === 'cli' && !s.context.isWake)).toBe(true);
  });

  it('sees every look of wait_for_mail', async () => {
    const { check, seen } = recordingCheck();
    const result = await run(
      bob,
      { ops_file: 'wait_for_mail', vars: { TIMEOUT_SECONDS: 1 } },
      { check, wake: { pollDelaysMs: [100] } },
    );
    expect(result.ok).toBe(true);
    const looks = seen.map((s) => s.what);
    expect(looks[0]).toBe('batch Email/get + Email/query + Email/get');
    expect(looks.slice(1).length).toBe(result.waited?.checks);
    expect(new Set(looks.slice(1))).toEqual(new Set(['batch Email/changes + Email/get']));
  });

  it('stops a batch it refuses: nothing of it reaches the service', async () => {
    const refusal = new MailboxError({
      code: 'invalid_input',
      message: 'Sending is not allowed here.',
      hint: 'Ask the operator.',
    });
    const refuseSends: Check = async (item) => {
      if (item.kind === 'batch' && item.request.methodCalls.some(([method]) => method === 'EmailSubmission/set'))
        throw refusal;
    };
    const sent = sentBodies();
    const error = await run(
      alice,
      { ops_file: 'send_mail', vars: { TO: bobAddress, SUBJECT: 'Refused by the check', BODY: 'Never sent.' } },
      { check: refuseSends, fetch: sent.fetch },
    ).catch((e: unknown) => e);
    expect(error).toBe(refusal);
    expect(
      sent.bodies.some((body) => body.includes('EmailSubmission/set') || body.includes('Refused by the check')),
    ).toBe(false);
  });

  it('lets a check read through the gate without checking its own reads, and only read', async () => {
    const seen: string[] = [];
    let looked: unknown;
    let writeRefused: unknown;
    const lookingCheck: Check = async (item, context) => {
      seen.push(item.kind === 'batch' ? item.request.methodCalls.map(([method]) => method).join(' + ') : 'upload');
      if (item.kind !== 'batch' || !item.request.methodCalls.some(([method]) => method === 'EmailSubmission/set'))
        return;
      const { accountId } = await context.session();
      const read = await context.read({
        using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
        methodCalls: [['Mailbox/get', { accountId, ids: null }, 'm']],
      });
      looked = read.methodResponses[0]?.[0];
      writeRefused = await context
        .read({
          using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
          methodCalls: [['Email/set', { accountId, destroy: ['x'] }, 'w']],
        })
        .catch((e: unknown) => e);
    };
    const result = await run(
      alice,
      { ops_file: 'send_mail', vars: { TO: bobAddress, SUBJECT: 'Looked at first', BODY: 'Checked.' } },
      { check: lookingCheck },
    );
    expect(result.ok).toBe(true);
    expect(seen).toEqual(['Email/set + EmailSubmission/set']);
    expect(looked).toBe('Mailbox/get');
    expect(writeRefused).toMatchObject({ code: 'internal', message: expect.stringContaining('Email/set') });
  });

  it('sees the reads of a wake run, marked as one', async () => {
    const { check, seen } = recordingCheck();
    const result = await wake({
      credentialsDir: bob.dir,
      account: bob,
      env: {},
      log: silentLogger,
      check,
      agentOutput: { write: () => undefined },
    });
    expect(result.stateAdvanced).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect(
      seen.every((s) => s.what.startsWith('batch ') && s.context.isWake && s.context.credentialsDir === bob.dir),
    ).toBe(true);
  });
});
