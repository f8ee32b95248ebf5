import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import type { MailboxError } from '../../src/errors.js';
import { presentJmapResult } from '../../src/present/present-jmap-result.js';
import { runJmapRequest, type JmapRequestInput, type JmapRequestResult } from '../../src/request/run-jmap-request.js';
import { silentLogger } from '../../src/log.js';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { cyrusSkipReason } from '../cyrus/cyrus-test-kit.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/**
 * Reading and replying like a mail client (issue 13), on the embedded store and on Cyrus: quoting,
 * reply_all, the RFC 3834 loop guard, read_thread with one's own replies, list_new without one's
 * own mail, honest failures for missing ids and unknown vars.
 */

type Email = Record<string, any>;

function mailClientSuite(backend: 'embedded' | 'cyrus'): void {
  let sandbox: RunningSandbox;
  let registry: ObservableAccountRegistry;
  let work: string;
  let alice: Account;
  let bob: Account;
  let aliceAddress: string;
  let bobAddress: string;

  const run = (account: Account, input: JmapRequestInput): Promise<JmapRequestResult> =>
    runJmapRequest(account, input, { signal: AbortSignal.timeout(30_000), log: silentLogger, timeoutMs: 10_000 });
  const emailsOf = (result: JmapRequestResult): Email[] => {
    const responses = result.response
      ? [result.response]
      : (result.steps ?? []).flatMap((s) => (s.response ? [s.response] : []));
    const gets = responses
      .flatMap((r) => r.methodResponses)
      .filter(([name, args]) => name === 'Email/get' && Array.isArray(args.list));
    return (gets[gets.length - 1]?.[1].list as Email[] | undefined) ?? [];
  };
  const waitFor = (account: Account, subject: string): Promise<Email> =>
    pollUntil(
      async () => emailsOf(await run(account, { ops_file: 'list_inbox' })).find((e) => e.subject === subject),
      10_000,
      `"${subject}"`,
    );
  const readEmail = async (account: Account, id: string): Promise<Email> =>
    emailsOf(await run(account, { ops_file: 'read_message', vars: { MAIL_ID: id } }))[0]!;
  const bodyOf = (email: Email): string =>
    String(email.bodyValues[email.textBody[0].partId].value).replace(/\r\n/g, '\n');

  async function deliver(
    message: Parameters<ReturnType<typeof nodemailer.createTransport>['sendMail']>[0],
  ): Promise<void> {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    try {
      await transport.sendMail(message);
    } finally {
      transport.close();
    }
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({ backend });
    work = await mkdtemp(join(tmpdir(), 'presets-mail-client-'));
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
    aliceAddress = (await alice.register({ username: 'alice-client', watch: 'on-demand' })).inbox;
    bobAddress = (await bob.register({ username: 'bob-client', watch: 'on-demand' })).inbox;
  });

  afterAll(async () => {
    registry?.close();
    await rm(work, { recursive: true, force: true });
  });

  describe(`mail-client presets on the ${backend} store`, () => {
    it('reply quotes the original below the answer, threads, says Re: once, and read_thread shows both sides', async () => {
      await run(alice, {
        ops_file: 'send_mail',
        vars: { TO: bobAddress, SUBJECT: 'Quote me', BODY: 'Line one\nLine two' },
      });
      const original = await waitFor(bob, 'Quote me');
      const replied = await run(bob, { ops_file: 'reply', vars: { MAIL_ID: original.id, BODY: 'My answer' } });
      expect(replied.ok, replied.summary).toBe(true);
      // The summary covers every step and names what was created.
      expect(replied.summary).toMatch(/^OK: read: .* \| send: .*EmailSubmission\/set.* \| mark_answered: /);
      expect(replied.created?.map((c) => c.method)).toEqual(['Email/set', 'EmailSubmission/set']);

      const reply = await readEmail(alice, (await waitFor(alice, 'Re: Quote me')).id);
      expect(reply.from[0].email).toBe(bobAddress);
      expect(bodyOf(reply)).toMatch(/^My answer\n\nOn .+, .*alice-client@[^\n]+ wrote:\n> Line one\n> Line two\s*$/);

      const thread = await run(bob, { ops_file: 'read_thread', vars: { MAIL_ID: original.id } });
      expect(thread.ok, thread.summary).toBe(true);
      const ids = emailsOf(thread).map((e) => e.id);
      const ownReplyId = replied.created?.find((c) => c.method === 'Email/set')?.id;
      expect(ids).toEqual(expect.arrayContaining([original.id, ownReplyId]));
      const { text } = presentJmapResult(thread, 'mcp');
      expect(text).toContain(`Thread of ${ids.length} messages, oldest first.`);
      // Bob's own reply is in the thread with its quote of the original folded.
      expect(text).toMatch(/My answer\n\[3 lines of quoted earlier messages folded\]/);
    });

    it('reply_all copies everyone else who got the message, never this inbox', async () => {
      await deliver({
        from: 'Ana <ana@outside.test>',
        to: [bobAddress, 'dan@outside.test'],
        cc: ['eve@outside.test', aliceAddress],
        subject: 'To all of you',
        text: 'Hello all',
      });
      const original = await waitFor(bob, 'To all of you');
      const replied = await run(bob, { ops_file: 'reply_all', vars: { MAIL_ID: original.id, BODY: 'Hi everyone' } });
      expect(replied.ok, replied.summary).toBe(true);
      const sentId = replied.created?.find((c) => c.method === 'Email/set')?.id;
      const sent = emailsOf(
        await run(bob, {
          ops: [['Email/get', { accountId: '$ACCOUNT_ID', ids: [sentId], properties: ['to', 'cc', 'subject'] }, 'g']],
        }),
      )[0]!;
      expect(sent.to.map((a: Email) => a.email)).toEqual(['ana@outside.test']);
      expect(sent.cc.map((a: Email) => a.email).sort()).toEqual(
        [aliceAddress, 'dan@outside.test', 'eve@outside.test'].sort(),
      );
      expect(sent.subject).toBe('Re: To all of you');
    });

    it('refuses to answer automatic mail (RFC 3834) unless ALLOW_AUTOMATIC is true, and marks it in listings', async () => {
      await deliver({
        from: 'Robot <robot@outside.test>',
        to: bobAddress,
        subject: 'Out of office',
        text: 'I am away.',
        headers: { 'Auto-Submitted': 'auto-replied' },
      });
      const auto = await waitFor(bob, 'Out of office');
      const refused = await run(bob, { ops_file: 'reply', vars: { MAIL_ID: auto.id, BODY: 'Thanks' } });
      expect(refused.ok).toBe(false);
      expect(refused.failures[0]).toMatchObject({ type: 'automaticMessage' });
      expect(refused.failures[0]?.fix).toContain('ALLOW_AUTOMATIC');
      expect(refused.created).toBeUndefined();
      expect(refused.summary).toContain('Not run: send, mark_answered.');

      const listing = presentJmapResult(await run(bob, { ops_file: 'list_inbox' }), 'cli').text;
      const line = listing.split('\n').find((l) => l.includes(auto.id));
      expect(line).toContain('automatic: do not auto-reply');

      const allowed = await run(bob, {
        ops_file: 'reply',
        vars: { MAIL_ID: auto.id, BODY: 'Thanks anyway', ALLOW_AUTOMATIC: true },
      });
      expect(allowed.ok, allowed.summary).toBe(true);
    });

    it("list_new leaves out this inbox's own sent copies and drafts", async () => {
      await run(alice, { ops_file: 'list_new' });
      await run(alice, { ops_file: 'send_mail', vars: { TO: bobAddress, SUBJECT: 'Mine, not new', BODY: 'x' } });
      await run(bob, { ops_file: 'send_mail', vars: { TO: aliceAddress, SUBJECT: 'From Bob, new', BODY: 'y' } });
      await waitFor(alice, 'From Bob, new');
      const fresh = await run(alice, { ops_file: 'list_new' });
      expect(fresh.ok, fresh.summary).toBe(true);
      const own = new Set(fresh.ownMailIds ?? []);
      const listed = emailsOf(fresh);
      expect(listed.filter((e) => own.has(e.id)).map((e) => e.subject)).toContain('Mine, not new');
      expect(listed.filter((e) => !own.has(e.id)).map((e) => e.subject)).toEqual(['From Bob, new']);
      const { text } = presentJmapResult(fresh, 'mcp');
      expect(text).toContain('From Bob, new');
      expect(text).not.toContain('Mine, not new');
    });

    it('a read of an id that does not exist is a failure that says so', async () => {
      const read = await run(bob, { ops_file: 'read_message', vars: { MAIL_ID: 'Mnosuchid' } });
      expect(read.ok).toBe(false);
      expect(read.failures).toEqual([expect.objectContaining({ type: 'notFound', recordId: 'Mnosuchid' })]);
      expect(read.next).toBeUndefined();
      expect(presentJmapResult(read, 'mcp').isFailure).toBe(true);
    });

    it('reports unknown vars before sending anything', async () => {
      const error = (await run(alice, { ops_file: 'search', vars: { SUBJET: 'x' } }).catch(
        (e: unknown) => e,
      )) as MailboxError;
      expect(error.code).toBe('vars_invalid');
      expect(error.message).toContain('SUBJET (did you mean SUBJECT?)');
    });
  });
}

mailClientSuite('embedded');
if (!cyrusSkipReason('presets-mail-client')) mailClientSuite('cyrus');
