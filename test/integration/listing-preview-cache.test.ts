import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { silentLogger } from '../../src/log.js';
import { runJmapRequest, type JmapRequestResult } from '../../src/request/run-jmap-request.js';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/**
 * A listing keeps what reading each message's HTML found (its preview, its hidden text) for the
 * next listing of the same bytes, and fetches that HTML no more. What it keeps are facts about the
 * mail, never verdicts: the operator's receive rules still judge every listed message at every
 * call, so a block entry added between two listings holds the message from the very next one.
 */

/** The preview fetch of a listing: the only request that asks for HTML body values. */
const previewFetch = '"fetchHTMLBodyValues":true';

function countingFetch(): { fetch: typeof fetch; previews: () => number } {
  let previews = 0;
  return {
    previews: () => previews,
    fetch: (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes(previewFetch)) previews += 1;
      return fetch(input, init);
    },
  };
}

let sandbox: RunningSandbox;
let registry: ObservableAccountRegistry;
let work: string;
let inbox: Account;

const list = (fetchImpl?: typeof fetch): Promise<JmapRequestResult> =>
  runJmapRequest(
    inbox,
    { ops_file: 'list_inbox' },
    {
      signal: AbortSignal.timeout(30_000),
      log: silentLogger,
      timeoutMs: 10_000,
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    },
  );
const listed = (result: JmapRequestResult) =>
  (result.response?.methodResponses[1]?.[1].list ?? []) as { id: string; subject: string }[];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  work = await mkdtemp(join(tmpdir(), 'preview-cache-'));
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
  const address = (await inbox.register({ username: `previews-${process.pid % 1000}`, watch: 'on-demand' })).inbox;
  const smtp = nodemailer.createTransport({
    host: '127.0.0.1',
    port: sandbox.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  await smtp.sendMail({
    from: 'news@letters.test',
    to: address,
    subject: 'Digest',
    html: '<div style="display:none">Preheader: big savings inside</div><p>Visible digest text.</p>',
  });
  await smtp.sendMail({ from: 'ana@fine.test', to: address, subject: 'Hello', text: 'plain words' });
  smtp.close();
  await pollUntil(async () => (listed(await list()).length === 2 ? true : undefined));
});
afterAll(async () => {
  registry?.close();
  await rm(work, { recursive: true, force: true });
});

describe('listing previews kept between calls', () => {
  it("reads an HTML mail's preview once, then shows the same preview and hidden-text count without fetching it", async () => {
    const first = await list();
    const digest = listed(first).find((m) => m.subject === 'Digest');
    expect(digest).toBeDefined();
    const counted = countingFetch();
    const second = await list(counted.fetch);
    expect(counted.previews()).toBe(0);
    expect(second.trust?.[digest?.id ?? '']).toEqual(first.trust?.[digest?.id ?? '']);
    expect(second.trust?.[digest?.id ?? '']?.preview).toBe('Visible digest text.');
    expect(second.trust?.[digest?.id ?? '']?.hidden?.techniques).toContain('display:none');
  });

  it('a block entry written between two listings holds the mail from the next listing on, and lifting it shows it again', async () => {
    await list();
    await writeFile(
      join(inbox.dir, 'policy.json'),
      JSON.stringify({ version: 1, receive: { block: ['letters.test'] } }),
      {
        mode: 0o600,
      },
    );
    const blocked = await list();
    expect(listed(blocked).map((m) => m.subject)).toEqual(['Hello']);
    expect(blocked.held?.count).toBe(1);
    expect(JSON.stringify(blocked.trust ?? {})).not.toContain('Visible digest text');
    await rm(join(inbox.dir, 'policy.json'));
    const counted = countingFetch();
    const lifted = await list(counted.fetch);
    expect(
      listed(lifted)
        .map((m) => m.subject)
        .sort(),
    ).toEqual(['Digest', 'Hello']);
    expect(lifted.held).toBeUndefined();
    expect(counted.previews()).toBe(0);
  });
});
