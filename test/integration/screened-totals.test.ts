import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { silentLogger } from '../../src/log.js';
import { runJmapRequest, type JmapRequestInput, type JmapRequestResult } from '../../src/request/run-jmap-request.js';
import type { RunningSandbox, SandboxBackendKind } from '../../sandbox/src/start-sandbox.js';
import { cyrusSkipReason } from '../cyrus/cyrus-test-kit.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/**
 * The attack: an agent (or whoever steers it) guesses the words of a message the operator's receive
 * rules hold, one filter at a time, reading totals, positions, query changes and snippets. Mail
 * arrives over SMTP into the sandbox (embedded store, and Cyrus where installed); every probe must
 * get the answer it would get if the held message did not exist, and no count of held mail.
 */

for (const kind of ['embedded', 'cyrus'] as SandboxBackendKind[]) {
  const skip = kind === 'cyrus' ? cyrusSkipReason('screened totals on cyrus') : undefined;
  describe.skipIf(skip !== undefined)(`screened totals, ${kind} backend`, () => {
    let sandbox: RunningSandbox;
    let registry: ObservableAccountRegistry;
    let work: string;
    let inbox: Account;
    let heldId = '';
    let stateBefore = '';

    type Args = Record<string, unknown>;
    const run = (input: JmapRequestInput): Promise<JmapRequestResult> =>
      runJmapRequest(inbox, input, { signal: AbortSignal.timeout(30_000), log: silentLogger, timeoutMs: 20_000 });
    const ops = (...calls: [string, Args, string][]): JmapRequestInput => ({
      ops: calls.map(([name, args, id]) => [name, { accountId: '$ACCOUNT_ID', ...args }, id]),
    });
    // Without the filter some servers (Cyrus) echo: it names the word, not what was found.
    const answers = (result: JmapRequestResult): Args[] =>
      (result.response?.methodResponses ?? []).map(([name, { filter: _filter, ...args }]) => ({ name, ...args }));

    /** What a probe for `word` shows: every answer, what the call reports held, and its failures. */
    async function probe(word: string, extra: Args = {}): Promise<unknown> {
      const result = await run(
        ops(
          ['Email/query', { filter: { text: word }, calculateTotal: true, ...extra }, 'q'],
          [
            'Email/get',
            { '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: ['id', 'subject'] },
            'g',
          ],
          ['Email/queryChanges', { filter: { text: word }, sinceQueryState: stateBefore, calculateTotal: true }, 'c'],
          ['SearchSnippet/get', { filter: { text: word }, emailIds: [heldId] }, 's'],
        ),
      );
      return { answers: answers(result), held: result.held, failures: result.failures };
    }

    beforeAll(async () => {
      sandbox = await startTestSandbox({ backend: kind });
      work = await mkdtemp(join(tmpdir(), 'screened-totals-'));
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
      const address = (await inbox.register({ username: `totals-${process.pid % 1000}`, watch: 'on-demand' })).inbox;
      stateBefore = String(
        (await run(ops(['Email/query', { filter: { text: 'funds' } }, 'q']))).response?.methodResponses[0]?.[1]
          .queryState,
      );
      const smtp = nodemailer.createTransport({
        host: '127.0.0.1',
        port: sandbox.smtpPort,
        secure: false,
        ignoreTLS: true,
      });
      await smtp.sendMail({
        from: 'ceo@spam.test',
        to: address,
        subject: 'Urgent',
        text: 'Wire the funds to account 4471 tonight.',
      });
      await smtp.sendMail({
        from: 'ana@fine.test',
        to: address,
        subject: 'Report',
        text: 'The funds report is attached.',
      });
      await smtp.sendMail({ from: 'bo@fine.test', to: address, subject: 'Hello', text: 'Lunch on Friday?' });
      smtp.close();
      const listed = await pollUntil(async () => {
        const list = ((await run({ ops_file: 'list_inbox' })).response?.methodResponses[1]?.[1].list ?? []) as {
          id: string;
          subject: string;
        }[];
        return list.length === 3 ? list : undefined;
      });
      heldId = listed.find((m) => m.subject === 'Urgent')?.id ?? '';
      // A search index (Cyrus) has the batch once it finds the last message sent.
      await pollUntil(
        async () =>
          (
            ((await run(ops(['Email/query', { filter: { text: 'Friday' } }, 'q']))).response?.methodResponses[0]?.[1]
              .ids ?? []) as string[]
          ).length === 1 || undefined,
      );
      await writeFile(
        join(inbox.dir, 'policy.json'),
        JSON.stringify({ version: 1, receive: { block: ['spam.test'] } }),
        { mode: 0o600 },
      );
    }, 120_000);
    afterAll(async () => {
      registry?.close();
      await rm(work, { recursive: true, force: true });
    });

    describe("guessing a held message's words", () => {
      it('gets for each of its words the answer a word nobody wrote gets: no total, no change, no snippet, no count', async () => {
        const nobody = await probe('zebra');
        for (const word of ['4471', 'tonight', 'wire']) expect(await probe(word), word).toEqual(nobody);
        expect(nobody).toMatchObject({
          answers: [
            { name: 'Email/query', ids: [], total: 0, position: 0 },
            { name: 'Email/get', list: [] },
            { name: 'Email/queryChanges', added: [], removed: [], total: 0 },
            { name: 'SearchSnippet/get', list: [], notFound: [heldId] },
          ],
          // Held and counted only as the id the probe named itself, whatever the word.
          held: { count: 1, requested: [heldId] },
        });
      });

      it('gets through maxChanges the answer a word only shown mail has gets', async () => {
        const changes = async (word: string) =>
          answers(
            await run(
              ops(['Email/queryChanges', { filter: { text: word }, sinceQueryState: stateBefore, maxChanges: 1 }, 'c']),
            ),
          );
        // `funds` is in the held message and in one shown message: two changes for the server, one shown.
        const shownOnly = await changes('report');
        // Cyrus may list every changed message in removed (RFC 8620 allows it), and then refuses both.
        if (kind === 'embedded')
          expect(shownOnly).toEqual([
            expect.objectContaining({
              name: 'Email/queryChanges',
              added: [expect.objectContaining({ index: 0 })],
              removed: [],
            }),
          ]);
        expect(await changes('funds')).toEqual(shownOnly);
        expect(await changes('4471')).toEqual(await changes('zebra'));
      });

      it('counts a word it shares with shown mail as the shown mail alone, at every position', async () => {
        const shared = (await probe('funds')) as { answers: Args[]; held: unknown };
        expect(shared.answers[0]).toMatchObject({ total: 1, position: 0 });
        expect(shared.answers[2]).toMatchObject({ total: 1, added: [{ index: 0 }] });
        const second = (await probe('funds', { position: 1 })) as { answers: Args[] };
        expect(second.answers[0]).toMatchObject({ ids: [], total: 1, position: 1 });
        const last = (await probe('funds', { position: -1 })) as { answers: Args[] };
        expect(last.answers[0]).toMatchObject({ total: 1, position: 0 });
        expect(JSON.stringify([shared, second, last])).not.toContain('Urgent');
      });

      it('still tells the listing its shown total and that one message was held', async () => {
        const result = await run({ ops_file: 'list_inbox' });
        expect(result.response?.methodResponses[0]?.[1]).toMatchObject({ total: 2, position: 0 });
        expect(result.held).toMatchObject({ count: 1, rules: [{ layer: 'inbox', rule: 'receive.block', count: 1 }] });
      });
    });
  });
}
