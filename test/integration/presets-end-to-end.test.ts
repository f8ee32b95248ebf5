import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { MailboxError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { downloadBlobToFile } from '../../src/mail/download-blob-to-file.js';
import { checkOutgoing } from '../../src/request/check-outgoing.js';
import { runJmapRequest, type JmapRequestInput, type JmapRequestResult } from '../../src/request/run-jmap-request.js';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { cyrusSkipReason } from '../cyrus/cyrus-test-kit.js';

/**
 * Every bundled preset end to end against the sandbox, through the real account layer (issue 3),
 * on the embedded store and, where it is installed, on Cyrus IMAP (the live service's mail store).
 */

type Email = Record<string, any>;

function presetSuite(backend: 'embedded' | 'cyrus'): void {
  let sandbox: RunningSandbox;
  let registry: ObservableAccountRegistry;
  let work: string;
  let alice: Account;
  let bob: Account;
  let aliceAddress: string;
  let bobAddress: string;
  /** Inboxes that one test each owns, for tests that depend on what is (not) in the inbox. */
  let carol: { account: Account; address: string };
  let dave: { account: Account; address: string };

  const ctx = () => ({ signal: AbortSignal.timeout(30_000), log: silentLogger, timeoutMs: 10_000 });
  const run = (account: Account, input: JmapRequestInput): Promise<JmapRequestResult> =>
    runJmapRequest(account, input, ctx());
  const listOf = (result: JmapRequestResult, callId: string): Email[] =>
    (result.response?.methodResponses.find(([, , id]) => id === callId)?.[1] as { list?: Email[] } | undefined)?.list ??
    [];

  async function inboxSubjects(account: Account): Promise<string[]> {
    return listOf(await run(account, { ops_file: 'list_inbox' }), 'get').map((e) => e.subject as string);
  }

  /** Waits until the account's Inbox holds a message with this subject, and returns it. */
  async function waitForMessage(account: Account, subject: string): Promise<Email> {
    return pollUntil(
      async () => listOf(await run(account, { ops_file: 'list_inbox' }), 'get').find((e) => e.subject === subject),
      10_000,
      `"${subject}"`,
    );
  }

  async function registerInbox(name: string): Promise<{ account: Account; address: string }> {
    const account = registry.open(join(work, name));
    return { account, address: (await account.register({ username: `${name}-e2e`, watch: 'on-demand' })).inbox };
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({ backend });
    work = await mkdtemp(join(tmpdir(), 'presets-e2e-'));
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
    const [a, b, c, d] = await Promise.all(['alice', 'bob', 'carol', 'dave'].map(registerInbox));
    ({ account: alice, address: aliceAddress } = a!);
    ({ account: bob, address: bobAddress } = b!);
    [carol, dave] = [c!, d!];
  });

  afterAll(async () => {
    registry?.close();
    await rm(work, { recursive: true, force: true });
  });

  describe(`presets against the ${backend} sandbox`, () => {
    it('runs on the backend it names', () => {
      expect(sandbox.backend).toBe(backend);
    });

    it('send_mail delivers a multi-line body with quotes, tabs and emoji intact, and files the sent copy in Sent', async () => {
      const body = 'Hi Bob,\n\t"quoted" \\ backslash\nPrice: $$5 🎉\nBye';
      const sent = await run(alice, {
        ops_file: 'send_mail',
        vars: { TO: bobAddress, SUBJECT: 'Hello $$ friend', BODY: body },
      });
      expect(sent.summary).toMatch(/^OK/);
      expect(sent.ok).toBe(true);

      const original = await waitForMessage(bob, 'Hello $$ friend');
      const read = await run(bob, { ops_file: 'read_message', vars: { MAIL_ID: original.id } });
      const email = listOf(read, 'read')[0]!;
      const partId = email.textBody[0].partId as string;
      expect(email.bodyValues[partId].value.replace(/\r\n/g, '\n').trimEnd()).toBe(body);
      expect(email.from[0].email).toBe(aliceAddress);

      const session = (await alice.readState()).session!;
      const copy = await run(alice, {
        ops: [
          ['Email/query', { accountId: '$ACCOUNT_ID', filter: { inMailbox: '$SENT_MAILBOX_ID' } }, 'q'],
          [
            'Email/get',
            {
              accountId: '$ACCOUNT_ID',
              '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
              properties: ['subject', 'mailboxIds', 'keywords'],
            },
            'g',
          ],
        ],
      });
      const sentCopy = listOf(copy, 'g').find((e) => e.subject === 'Hello $$ friend')!;
      expect(Object.keys(sentCopy.mailboxIds)).toEqual([session.mailboxIdsByRole!.sent]);
      expect(sentCopy.keywords.$draft).toBeUndefined();
    });

    it('reply threads on the recipient side: To from the sender, Re: once, In-Reply-To and References', async () => {
      await run(alice, { ops_file: 'send_mail', vars: { TO: bobAddress, SUBJECT: 'Thread me', BODY: 'first' } });
      const original = await waitForMessage(bob, 'Thread me');
      const originalFull = listOf(
        await run(bob, { ops_file: 'read_message', vars: { MAIL_ID: original.id } }),
        'read',
      )[0]!;

      const replied = await run(bob, { ops_file: 'reply', vars: { MAIL_ID: original.id, BODY: 'second' } });
      expect(replied.ok).toBe(true);
      expect(replied.steps?.map((s) => s.id)).toEqual(['read', 'send', 'mark_answered']);

      expect(originalFull.messageId).toEqual([expect.stringMatching(/@/)]);
      const reply = await waitForMessage(alice, 'Re: Thread me');
      const replyFull = listOf(await run(alice, { ops_file: 'read_message', vars: { MAIL_ID: reply.id } }), 'read')[0]!;
      expect(replyFull.from[0].email).toBe(bobAddress);
      expect(replyFull.inReplyTo).toEqual(originalFull.messageId);
      expect(replyFull.references).toEqual(originalFull.messageId);

      const again = await run(alice, { ops_file: 'reply', vars: { MAIL_ID: reply.id, BODY: 'third' } });
      expect(again.ok).toBe(true);
      const second = await waitForMessage(bob, 'Re: Thread me');
      const secondFull = listOf(await run(bob, { ops_file: 'read_message', vars: { MAIL_ID: second.id } }), 'read')[0]!;
      expect(secondFull.references).toEqual([...originalFull.messageId, ...replyFull.messageId]);

      const marked = listOf(
        await run(bob, {
          ops: [['Email/get', { accountId: '$ACCOUNT_ID', ids: [original.id], properties: ['keywords'] }, 'g']],
        }),
        'g',
      )[0]!;
      expect(marked.keywords.$answered).toBe(true);
    });

    it('list_new lists recent mail first, then only what arrived since its last run', async () => {
      // Carol's inbox is this test's alone: the first run's "recent mail" and the stored state are its own.
      await run(alice, { ops_file: 'send_mail', vars: { TO: carol.address, SUBJECT: 'Already here', BODY: 'old' } });
      await waitForMessage(carol.account, 'Already here');
      const first = await run(carol.account, { ops_file: 'list_new' });
      expect(first.ok).toBe(true);
      expect(listOf(first, 'get').length).toBeGreaterThan(0);
      expect((await carol.account.readState()).listNewState).toBeTruthy();

      const empty = await run(carol.account, { ops_file: 'list_new' });
      expect(listOf(empty, 'get')).toEqual([]);

      await run(alice, { ops_file: 'send_mail', vars: { TO: carol.address, SUBJECT: 'Only this one', BODY: 'new' } });
      await waitForMessage(carol.account, 'Only this one');
      const fresh = await run(carol.account, { ops_file: 'list_new' });
      expect(listOf(fresh, 'get').map((e) => e.subject)).toEqual(['Only this one']);
    });

    it('search finds mail by sender and by subject, and needs at least one criterion', async () => {
      // Dave's inbox is this test's alone and holds exactly the three messages it sends.
      for (const subject of ['Only this one', 'Something else', 'Another thing']) {
        await run(alice, { ops_file: 'send_mail', vars: { TO: dave.address, SUBJECT: subject, BODY: 'searchable' } });
      }
      // Full-text indexes lag delivery slightly on Cyrus (jmap.md): poll instead of asserting once.
      const bySubject = await pollUntil(async () => {
        const subjects = listOf(
          await run(dave.account, { ops_file: 'search', vars: { SUBJECT: 'Only this' } }),
          'get',
        ).map((e) => e.subject);
        return subjects.length > 0 ? subjects : undefined;
      });
      expect(bySubject).toEqual(['Only this one']);
      const byFrom = await pollUntil(async () => {
        const found = listOf(await run(dave.account, { ops_file: 'search', vars: { FROM: aliceAddress } }), 'get');
        return found.length >= 3 ? found : undefined;
      });
      expect(byFrom.every((e) => e.from[0].email === aliceAddress)).toBe(true);
      await expect(run(dave.account, { ops_file: 'search' })).rejects.toMatchObject({ code: 'vars_missing' });
    });

    it('mark_read sets $seen and move_to_trash moves the message out of the Inbox', async () => {
      await run(alice, {
        ops_file: 'send_mail',
        vars: { TO: bobAddress, SUBJECT: 'Mark and trash me', BODY: 'done soon' },
      });
      const target = await waitForMessage(bob, 'Mark and trash me');
      expect((await run(bob, { ops_file: 'mark_read', vars: { MAIL_ID: target.id } })).ok).toBe(true);
      const seen = listOf(
        await run(bob, {
          ops: [['Email/get', { accountId: '$ACCOUNT_ID', ids: [target.id], properties: ['keywords'] }, 'g']],
        }),
        'g',
      )[0]!;
      expect(seen.keywords.$seen).toBe(true);

      expect((await run(bob, { ops_file: 'move_to_trash', vars: { MAIL_ID: target.id } })).ok).toBe(true);
      expect(await inboxSubjects(bob)).not.toContain('Mark and trash me');
    });

    it('send_mail_blob_attachment uploads a file, and the recipient downloads the same bytes to a file', async () => {
      const file = join(work, 'report.csv');
      const bytes = 'a,b\n1,"two"\n€,😀\n';
      await writeFile(file, bytes);
      const sent = await run(alice, {
        ops_file: 'send_mail_blob_attachment',
        vars: { TO: bobAddress, SUBJECT: 'With file', BODY: 'see attached' },
        attachments: [file],
      });
      expect(sent.ok).toBe(true);
      expect(sent.attachments).toEqual([
        expect.objectContaining({ name: 'report.csv', type: 'text/csv', size: Buffer.byteLength(bytes) }),
      ]);

      const message = await waitForMessage(bob, 'With file');
      const email = listOf(await run(bob, { ops_file: 'read_message', vars: { MAIL_ID: message.id } }), 'read')[0]!;
      const attachment = email.attachments.find((a: Email) => a.name === 'report.csv');
      expect(attachment).toBeDefined();

      const downloads = join(work, 'downloads');
      await (await import('node:fs/promises')).mkdir(downloads);
      const saved = await downloadBlobToFile(
        bob,
        { blobId: attachment.blobId, name: attachment.name, type: attachment.type },
        { ...ctx(), check: checkOutgoing, allowedDirs: [downloads] },
      );
      expect(saved.path).toBe(join(downloads, 'report.csv'));
      expect(await readFile(saved.path, 'utf8')).toBe(bytes);
      await expect(
        downloadBlobToFile(
          bob,
          { blobId: attachment.blobId, path: '../escape.csv' },
          { ...ctx(), check: checkOutgoing, allowedDirs: [downloads] },
        ),
      ).rejects.toMatchObject({
        code: 'attachment_invalid',
      });
    });

    it('send_mail_attachment sends inline base64 through Blob/upload, or says clearly that the server lacks RFC 9404', async () => {
      const vars = {
        TO: bobAddress,
        SUBJECT: 'Inline file',
        BODY: 'inline',
        ATTACHMENT_BASE64: Buffer.from('hello inline').toString('base64'),
        ATTACHMENT_TYPE: 'text/plain',
        ATTACHMENT_NAME: 'hello.txt',
      };
      const session = (await alice.readState()).session!;
      if (!session.capabilities.includes('urn:ietf:params:jmap:blob')) {
        await expect(run(alice, { ops_file: 'send_mail_attachment', vars })).rejects.toMatchObject({
          code: 'jmap_request_error',
        });
        return;
      }
      const sent = await run(alice, { ops_file: 'send_mail_attachment', vars, echo_request: true });
      expect(sent.ok).toBe(true);
      expect(sent.request?.using).toContain('urn:ietf:params:jmap:blob');
      const message = await waitForMessage(bob, 'Inline file');
      const email = listOf(await run(bob, { ops_file: 'read_message', vars: { MAIL_ID: message.id } }), 'read')[0]!;
      const attachment = email.attachments.find((a: Email) => a.name === 'hello.txt');
      const saved = await downloadBlobToFile(
        bob,
        { blobId: attachment.blobId, name: 'hello.txt' },
        { ...ctx(), check: checkOutgoing, allowedDirs: [work] },
      );
      expect(await readFile(saved.path, 'utf8')).toBe('hello inline');
    });

    it('reports a From other than $INBOX as forbiddenFrom with ok false', async () => {
      const result = await run(alice, {
        ops: JSON.stringify([
          [
            'Email/set',
            {
              accountId: '$ACCOUNT_ID',
              create: {
                d: {
                  mailboxIds: { $DRAFTS_MAILBOX_ID: true },
                  from: [{ email: bobAddress }],
                  to: [{ email: bobAddress }],
                  subject: 'spoof',
                  bodyValues: { b: { value: 'x' } },
                  textBody: [{ partId: 'b', type: 'text/plain' }],
                },
              },
            },
            'c',
          ],
          [
            'EmailSubmission/set',
            { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#d', identityId: '$IDENTITY_ID' } } },
            's',
          ],
        ]),
      });
      expect(result.ok).toBe(false);
      expect(result.failures.map((f) => f.type)).toContain('forbiddenFrom');
      expect(result.summary).toMatch(/^FAILED: .*forbiddenFrom/);
      // The refused message's draft is deleted, so it never shows up as mail later.
      const draftId = result.created?.find((c) => c.creationId === 'd')?.id;
      expect(draftId).toBeTruthy();
      expect(result.notes?.join(' ')).toContain('was deleted');
      const left = await run(alice, {
        ops: [['Email/get', { accountId: '$ACCOUNT_ID', ids: [draftId], properties: ['id'] }, 'g']],
      });
      expect(left.failures).toEqual([expect.objectContaining({ type: 'notFound', recordId: draftId })]);
    });

    it('reply to an id that does not exist fails with a hint instead of sending', async () => {
      const result = await run(bob, { ops_file: 'reply', vars: { MAIL_ID: 'no-such-id', BODY: 'x' } });
      expect(result.ok).toBe(false);
      expect(result.failures[0]).toMatchObject({ type: 'notFound', recordId: 'no-such-id' });
      expect(result.failures[0]?.fix).toContain('list_inbox');
      expect(result.summary).toContain('Not run: send, mark_answered.');
      expect(result.created).toBeUndefined();
    });

    it('names every missing variable of a preset in one error', async () => {
      const error = (await run(alice, { ops_file: 'send_mail', vars: { TO: bobAddress } }).catch(
        (e: unknown) => e,
      )) as MailboxError;
      expect(error.code).toBe('vars_missing');
      expect(error.details?.missing).toEqual(['BODY', 'SUBJECT']);
    });
  });
}

presetSuite('embedded');
if (!cyrusSkipReason('presets-end-to-end')) presetSuite('cyrus');
