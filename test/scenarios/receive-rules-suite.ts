import { access, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBackendKind } from '../../sandbox/src/start-sandbox.js';
import { cyrusSkipReason, eventually } from '../cyrus/cyrus-test-kit.js';
import { createRecorder } from '../e2e/watch-fixtures.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import { runCliInTerminal } from '../helpers/run-in-terminal.js';
import { outsideDomain } from '../../sandbox/test/mail-auth/mail-auth-kit.js';
import { listed, ok, resultOf, startTrustWorld, untilListed, type JmapRun, type TrustWorld } from './mail-trust-kit.js';

/**
 * The operator's receive rules on every path the agent reads by, on one backend: an allow-list
 * (good.test, example.org and a colleague's inbox) with one blocked address. Mail is delivered
 * before the rules are written, so the operator's own view shows it is there while the agent's
 * does not.
 */

const shown = ['Shown good', 'Shown example', 'Shown attachment', 'Shown colleague'];
const held = ['Held spam one', 'Held forged good', 'Held blocked', 'Held spam two', 'Re: Shown example'];

export function describeReceiveRules(kind: SandboxBackendKind): void {
  const skip = kind === 'cyrus' ? cyrusSkipReason('receive rules on cyrus') : undefined;
  describe.skipIf(skip !== undefined)(`receive rules on every reading path, ${kind} backend`, () => {
    const good = outsideDomain('good.test');
    const spam = outsideDomain('spam.test');
    const example = outsideDomain('example.org');
    let world: TrustWorld;
    let guarded: { address: string; dir: string };
    let ids: Map<string, string>;
    let startState = '';
    const blobs = { held: '', shown: '' };
    const id = (subject: string): string => ids.get(subject) ?? '';
    /** Nothing of held mail in what the agent got: no subject, no id (but those it asked for itself). */
    const noneHeld = (stdout: string, except: string[] = []): void => {
      for (const subject of held) expect(stdout, subject).not.toContain(subject);
      for (const subject of held) if (!except.includes(id(subject))) expect(stdout, subject).not.toContain(id(subject));
    };

    beforeAll(async () => {
      world = await startTrustWorld(kind, [good, spam, example]);
      guarded = await world.register('guarded');
      const colleague = await world.register('colleague2');
      startState = String(
        resultOf(
          ok(
            await world.jmap(guarded.dir, [
              '--ops',
              JSON.stringify([['Email/get', { accountId: '$ACCOUNT_ID', ids: [] }, 's']]),
            ]),
          ),
          's',
        )['state'],
      );
      // Different bytes: Cyrus names a blob by its content, and a blob a shown message holds too is the shown message's.
      const file = { filename: 'report.txt', content: 'quarterly numbers\n', contentType: 'text/plain' };
      const heldFile = { ...file, content: 'numbers the operator keeps out\n' };
      await world.send({
        from: 'Good <news@good.test>',
        to: guarded.address,
        subject: 'Shown good',
        text: 'from an allowed domain',
        signedBy: good,
      });
      await world.send({
        from: 'Spam <offers@spam.test>',
        to: guarded.address,
        subject: 'Held spam one',
        text: 'buy now',
        signedBy: spam,
      });
      await world.send({
        from: 'Ana <ana@example.org>',
        to: guarded.address,
        subject: 'Shown example',
        text: 'hello',
        signedBy: example,
        messageId: '<shown-example@example.org>',
      });
      await world.send({
        from: 'Good <news@good.test>',
        envelopeFrom: 'x@example.org',
        to: guarded.address,
        subject: 'Held forged good',
        text: 'forged',
        signedBy: example,
      });
      await world.send({
        from: 'Blocked <blocked@example.org>',
        to: guarded.address,
        subject: 'Held blocked',
        text: 'see file',
        signedBy: example,
        attachments: [heldFile],
      });
      await world.send({
        from: 'Good <news@good.test>',
        to: guarded.address,
        subject: 'Shown attachment',
        text: 'see file',
        signedBy: good,
        attachments: [file],
      });
      await world.send({
        from: 'Spam <offers@spam.test>',
        to: guarded.address,
        subject: 'Held spam two',
        text: 'buy again',
        signedBy: spam,
      });
      ok(
        await world.preset(colleague.dir, 'send_mail', {
          TO: guarded.address,
          SUBJECT: 'Shown colleague',
          BODY: 'from another inbox',
        }),
      );
      await world.send({
        from: 'Spam <offers@spam.test>',
        to: guarded.address,
        subject: 'Re: Shown example',
        text: 'butting in',
        signedBy: spam,
        inReplyTo: '<shown-example@example.org>',
      });
      ids = await untilListed(world, guarded.dir, [...shown, ...held]);
      const attachmentOf = async (subject: string) =>
        (
          resultOf(ok(await world.preset(guarded.dir, 'read_message', { MAIL_ID: id(subject) })), 'read')['list'] as {
            attachments: { blobId: string }[];
          }[]
        )[0]?.attachments[0]?.blobId ?? '';
      blobs.held = await attachmentOf('Held blocked');
      blobs.shown = await attachmentOf('Shown attachment');
      await world.policy(
        guarded.dir,
        { kind: 'set', settings: { receiveMode: 'allowlist' } },
        { kind: 'list', direction: 'receive', list: 'allow', entries: ['good.test', 'example.org', colleague.address] },
        { kind: 'list', direction: 'receive', list: 'block', entries: ['blocked@example.org'] },
      );
    }, 120_000);
    afterAll(() => world?.close());

    it('lists only allowed, authenticated senders, says how many were held, and fills a short page from the mail after it', async () => {
      const all = await world.preset(guarded.dir, 'list_inbox', { LIMIT: 100 });
      const run = ok(all);
      expect(
        listed(run)
          .map((m) => m.subject)
          .sort(),
      ).toEqual([...shown].sort());
      expect(run.held).toMatchObject({ count: held.length, requested: [] });
      noneHeld(all.stdout);
      const page = await world.preset(guarded.dir, 'list_inbox', { LIMIT: 2 });
      expect(listed(ok(page))).toHaveLength(2);
      noneHeld(page.stdout);
      const text = await world.text(guarded.dir, 'list_inbox', { LIMIT: 2 });
      expect(text.stdout).toMatch(
        /\n\d+ messages? held back by your operator's receive rules: not shown, left in the mailbox\.\n/,
      );
      noneHeld(text.stdout);
      // Nothing is moved or deleted: the operator still sees every message.
      expect((await world.operatorSubjects(guarded.dir)).sort()).toEqual([...shown, ...held].sort());
    });

    it('leaves held mail out of list_new and search', async () => {
      const fresh = await world.preset(guarded.dir, 'list_new', { LIMIT: 100 });
      expect(
        listed(ok(fresh))
          .map((m) => m.subject)
          .sort(),
      ).toEqual([...shown].sort());
      noneHeld(fresh.stdout);
      // The search index has the batch once it finds the allowed mail sent around the held mail.
      await eventually(
        async () =>
          listed(ok(await world.preset(guarded.dir, 'search', { FROM: 'good.test' }))).length === 2 ? true : undefined,
        15_000,
      );
      const search = await world.preset(guarded.dir, 'search', { FROM: 'spam.test' });
      expect(listed(ok(search))).toEqual([]);
      // A search by what the sender wrote holds its matches without a count: a count would say who wrote the held mail.
      expect((search.json as JmapRun).held).toBeUndefined();
      noneHeld(search.stdout);
    });

    it('answers read_message of a held id that it is held back, showing none of it', async () => {
      const run = await world.preset(guarded.dir, 'read_message', { MAIL_ID: id('Held blocked') });
      expect(run.code).toBe(1);
      expect((run.json as JmapRun).failures).toEqual([
        expect.objectContaining({ type: 'heldByPolicy', recordId: id('Held blocked') }),
      ]);
      noneHeld(run.stdout, [id('Held blocked')]);
      expect(run.stdout).not.toContain('see file');
      const text = await world.text(guarded.dir, 'read_message', { MAIL_ID: id('Held blocked') });
      expect(text.stdout).toContain(
        "heldByPolicy — Held back by your operator's receive rules: none of it is shown to you",
      );
    });

    it('refuses to reply to a held message: the reply reads it first, and nothing is sent', async () => {
      const run = await world.preset(guarded.dir, 'reply', { MAIL_ID: id('Held spam one'), BODY: 'Thanks!' });
      expect(run.code).toBe(1);
      expect((run.json as JmapRun).failures).toEqual([expect.objectContaining({ type: 'heldByPolicy' })]);
      noneHeld(run.stdout, [id('Held spam one')]);
      expect((await world.sandbox.outbox()).filter((mail) => mail.to.includes('offers@spam.test'))).toEqual([]);
    });

    it('reads a thread without the held message in it', async () => {
      const run = await world.text(guarded.dir, 'read_thread', { MAIL_ID: id('Shown example') });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Thread of 1 message, oldest first.');
      expect(run.stdout).toContain('1 message held back by your operator');
      noneHeld(run.stdout);
    });

    it('screens raw Email/get, Email/query, Thread/get, SearchSnippet/get and Email/changes', async () => {
      const ops = [
        [
          'Email/get',
          {
            accountId: '$ACCOUNT_ID',
            ids: [id('Held spam one'), id('Shown good')],
            properties: ['subject', 'threadId'],
          },
          'byId',
        ],
        ['Email/query', { accountId: '$ACCOUNT_ID', filter: { inMailbox: '$INBOX_MAILBOX_ID' } }, 'q'],
        [
          'Thread/get',
          { accountId: '$ACCOUNT_ID', '#ids': { resultOf: 'byId', name: 'Email/get', path: '/list/*/threadId' } },
          't',
        ],
        ['Email/changes', { accountId: '$ACCOUNT_ID', sinceState: startState }, 'c'],
      ];
      const run = await world.jmap(guarded.dir, ['--ops', JSON.stringify(ops)]);
      expect(run.code).toBe(1);
      const json = run.json as JmapRun;
      expect(resultOf(json, 'byId')).toMatchObject({
        list: [expect.objectContaining({ subject: 'Shown good' })],
        notFound: [id('Held spam one')],
      });
      expect((resultOf(json, 'q')['ids'] as string[]).sort()).toEqual(shown.map(id).sort());
      expect(resultOf(json, 't')['list']).toEqual([expect.objectContaining({ emailIds: [id('Shown good')] })]);
      expect((resultOf(json, 'c')['created'] as string[]).sort()).toEqual(shown.map(id).sort());
      noneHeld(run.stdout, [id('Held spam one')]);
      const snippets = await world.jmap(guarded.dir, [
        '--ops',
        JSON.stringify([
          [
            'SearchSnippet/get',
            { accountId: '$ACCOUNT_ID', emailIds: [id('Held spam two'), id('Shown good')], filter: { subject: 'e' } },
            's',
          ],
        ]),
      ]);
      expect((resultOf(snippets.json as JmapRun, 's')['list'] as { emailId: string }[]).map((s) => s.emailId)).toEqual([
        id('Shown good'),
      ]);
      noneHeld(snippets.stdout, [id('Held spam two')]);
    });

    it('downloads an attachment only from a shown message named with mail_id', async () => {
      const downloads = join(world.base, 'downloads');
      await mkdir(downloads, { recursive: true });
      const download = (value: Record<string, string>) =>
        world.jmap(guarded.dir, ['--download', JSON.stringify(value)], { AGENT_MAILBOX_DOWNLOAD_DIR: downloads });
      const refused = await download({ blob_id: blobs.held, mail_id: id('Held blocked'), name: 'held.txt' });
      expect(refused.code).toBe(3);
      expect((refused.json as JmapRun).error?.code).toBe('policy_refused');
      await expect(access(join(downloads, 'held.txt'))).rejects.toThrow();
      expect((await download({ blob_id: blobs.held, name: 'nameless.txt' })).code).toBe(2);
      expect(
        (
          (await download({ blob_id: blobs.held, mail_id: id('Shown attachment'), name: 'borrowed.txt' }))
            .json as JmapRun
        ).error?.code,
      ).toBe('attachment_invalid');
      ok(await download({ blob_id: blobs.shown, mail_id: id('Shown attachment'), name: 'shown.txt' }));
      expect(await readFile(join(downloads, 'shown.txt'), 'utf8')).toBe('quarterly numbers\n');
    });

    it('does not return from wait_for_mail for held mail, and never runs a wake agent for it', async () => {
      const recorder = await createRecorder(world.base);
      const wake = () =>
        runCliInProcess(['wake', '--credentials-dir', guarded.dir, '--wake-command', recorder.command(0)], {
          env: world.env,
        });
      const first = await wake();
      expect(first.code, first.stderr).toBe(0);
      expect(first.json).toMatchObject({ newMail: shown.length, agent: { ran: true } });
      noneHeld(await readFile(join(guarded.dir, 'inbox-digest.md'), 'utf8'));
      ok(await world.preset(guarded.dir, 'list_new'));

      await world.send({
        from: 'Spam <offers@spam.test>',
        to: guarded.address,
        subject: 'Held late',
        text: 'wake up',
        signedBy: spam,
      });
      await eventually(
        async () => ((await world.operatorSubjects(guarded.dir)).includes('Held late') ? true : undefined),
        15_000,
      );
      const waited = await eventually(async () => {
        const run = await world.preset(guarded.dir, 'wait_for_mail', { TIMEOUT_SECONDS: 1 });
        return (run.json as JmapRun).held ? run : undefined;
      }, 20_000);
      expect(ok(waited)).toMatchObject({
        summary: expect.stringMatching(/^OK: no new mail in 1 s/),
        held: { count: 1 },
      });
      expect(waited.stdout).not.toContain('Held late');
      const second = await wake();
      expect(second.code, second.stderr).toBe(0);
      expect(second.json).toMatchObject({ newMail: 0, agent: { ran: false } });
      expect(await recorder.calls()).toHaveLength(1);
    });

    it('shows held mail to the operator with --include-held only at a terminal', async () => {
      const agent = await world.jmap(guarded.dir, ['--ops-file', 'list_inbox', '--include-held']);
      expect(agent.code).toBe(3);
      expect((agent.json as JmapRun).error?.code).toBe('operator_required');
      noneHeld(agent.stdout);
      const run = await runCliInTerminal(
        [
          'jmap_request',
          '--ops-file',
          'list_inbox',
          '--vars',
          '{"LIMIT":100}',
          '--include-held',
          '--credentials-dir',
          guarded.dir,
        ],
        { env: world.env, answer: 'yes\n' },
      );
      expect(run.code, run.stdout).toBe(0);
      const operator = run.stdout;
      expect(operator).toContain('type yes to go ahead');
      for (const subject of held) expect(operator).toContain(subject);
      expect(operator).toContain('held from the agent by the receive rules');
      expect(operator).toMatch(/Operator view \(--include-held\): \d+ messages are held back from the agent/);
    });
  });
}
