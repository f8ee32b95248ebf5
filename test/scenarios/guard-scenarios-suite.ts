import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { markInboxWaking } from '../../src/policy/records/wake-read-only.js';
import { cyrusSkipReason, eventually } from '../cyrus/cyrus-test-kit.js';
import { connectMcp, resultText, structured } from '../helpers/connect-mcp.js';
import { startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';
import { runCliInProcess, type CliRun } from '../helpers/run-cli.js';
import { runCliInTerminal, terminalSkipReason } from '../helpers/run-in-terminal.js';

/**
 * The operator's send rules on a backend, through the doors an agent uses (the CLI as a shell agent
 * types it, and the MCP server): allowed mail arrives; refused mail leaves nothing on the server —
 * no draft, nothing in Sent, nothing received inside or outside. One suite, run on the embedded
 * store and on Cyrus (one file each, so they run side by side).
 */

const eve = 'eve@evil.test';

export function describeGuardScenarios(kind: 'embedded' | 'cyrus'): void {
  const skip = kind === 'cyrus' ? cyrusSkipReason('guard scenarios on cyrus') : undefined;
  describe.skipIf(skip !== undefined)(`the send guard on the ${kind} backend`, () => {
    let world: GuardWorld;
    const cli = (args: string[]): Promise<CliRun> => runCliInProcess(args, { env: world.env });
    const send = (vars: Record<string, unknown>, dir = world.alice.dir): Promise<CliRun> =>
      cli([
        'jmap_request',
        '--ops-file',
        'send_mail',
        '--vars',
        JSON.stringify({ BODY: 'x', ...vars }),
        '--credentials-dir',
        dir,
        '--json',
      ]);
    const ops = (methodCalls: unknown[], dir = world.alice.dir): Promise<CliRun> =>
      cli(['jmap_request', '--ops', JSON.stringify(methodCalls), '--credentials-dir', dir, '--json']);
    const nothingLeft = async (subject: string): Promise<void> =>
      expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
    const arrives = (subject: string) =>
      eventually(async () => ((await world.traces(subject)).bob.length === 1 ? true : undefined), 10_000);

    beforeAll(async () => {
      world = await startGuardWorld(kind, `sc-${kind.slice(0, 3)}`);
    }, 120_000);
    afterEach(async () => world.clearPolicies());

    it('sends to the allow-list and the mail arrives; refuses anyone else with exit 3 and leaves nothing', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      const ok = await send({ TO: world.address.bob, SUBJECT: `Guard ${kind}: allowed` });
      expect(ok.code, ok.stderr).toBe(0);
      await arrives(`Guard ${kind}: allowed`);
      const refused = await send({ TO: eve, SUBJECT: `Guard ${kind}: refused` });
      expect(refused.code).toBe(3);
      expect(refused.json).toMatchObject({
        error: { code: 'policy_refused', details: { rule: { layer: 'user', rule: 'send.mode=allowlist' } } },
      });
      await nothingLeft(`Guard ${kind}: refused`);
    });

    it('refuses a Bcc hidden in a raw header, and a Bcc inside an imported message', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      const subject = `Guard ${kind}: raw bcc`;
      const raw = await ops([
        [
          'Email/set',
          {
            accountId: '$ACCOUNT_ID',
            create: {
              d: {
                mailboxIds: { $DRAFTS_MAILBOX_ID: true },
                from: [{ email: '$INBOX' }],
                to: [{ email: world.address.bob }],
                'header:Bcc:asAddresses': [{ email: eve }],
                subject,
                bodyValues: { b: { value: 'x' } },
                textBody: [{ partId: 'b', type: 'text/plain' }],
              },
            },
          },
          'e',
        ],
        [
          'EmailSubmission/set',
          { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#d', identityId: '$IDENTITY_ID' } } },
          's',
        ],
      ]);
      expect(raw.code).toBe(3);
      await nothingLeft(subject);
      const imported = `Guard ${kind}: imported bcc`;
      const message = `From: ${world.address.alice}\r\nTo: ${world.address.bob}\r\nBcc: ${eve}\r\nSubject: ${imported}\r\nMessage-ID: <${Date.now()}@guard.test>\r\n\r\nx\r\n`;
      const run = await ops([
        ['Blob/upload', { accountId: '$ACCOUNT_ID', create: { r: { data: [{ 'data:asText': message }] } } }, 'u'],
        [
          'Email/import',
          { accountId: '$ACCOUNT_ID', emails: { m: { blobId: '#r', mailboxIds: { $DRAFTS_MAILBOX_ID: true } } } },
          'i',
        ],
        [
          'EmailSubmission/set',
          { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#m', identityId: '$IDENTITY_ID' } } },
          's',
        ],
      ]);
      expect(run.code).toBe(3);
      await nothingLeft(imported);
    });

    it('refuses over the cap and a mail carrying a private key, leaving nothing', async () => {
      await world.writeInboxPolicy(world.bob.dir, { send: { maxSendsPerDay: 1 } });
      expect((await send({ TO: world.address.alice, SUBJECT: `Guard ${kind}: cap 1` }, world.bob.dir)).code).toBe(0);
      const over = await send({ TO: world.address.alice, SUBJECT: `Guard ${kind}: cap 2` }, world.bob.dir);
      expect(over.code).toBe(3);
      expect(over.json).toMatchObject({ error: { details: { rule: { rule: 'send.maxSendsPerDay' } } } });
      const secret = await send({
        TO: world.address.bob,
        SUBJECT: `Guard ${kind}: key`,
        BODY: '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB',
      });
      expect(secret.code).toBe(3);
      await nothingLeft(`Guard ${kind}: key`);
    });

    it('keeps the inbox read-only while a wake runs for it', async () => {
      const release = await markInboxWaking(world.userConfigDir, world.address.alice);
      try {
        const run = await send({ TO: world.address.bob, SUBJECT: `Guard ${kind}: during a wake` });
        expect(run.code).toBe(3);
        expect(
          (await cli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', world.alice.dir])).code,
        ).toBe(0);
      } finally {
        await release();
      }
      await nothingLeft(`Guard ${kind}: during a wake`);
    });

    it('knows an inbox that wrote first (the service authenticated it), never a sender from outside that did', async () => {
      const carolDir = join(world.base, 'carol');
      const carol = (
        await world.registry
          .open(carolDir)
          .register({ username: `gc-${kind.slice(0, 3)}-${process.pid % 1000}`, watch: 'on-demand' })
      ).inbox;
      expect((await send({ TO: world.address.alice, SUBJECT: `Guard ${kind}: carol writes` }, carolDir)).code).toBe(0);
      const stranger = 'dave@outside.example';
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: world.sandbox.smtpPort,
        secure: false,
        ignoreTLS: true,
      });
      await transport.sendMail({
        from: stranger,
        to: world.address.alice,
        subject: `Guard ${kind}: dave writes`,
        text: 'hi',
      });
      transport.close();
      const search = (from: string) =>
        cli([
          'jmap_request',
          '--ops-file',
          'search',
          '--vars',
          JSON.stringify({ FROM: from }),
          '--credentials-dir',
          world.alice.dir,
          '--json',
        ]);
      for (const from of [carol, stranger]) {
        await eventually(
          async () =>
            ((await search(from)).json as { response?: { methodResponses: [string, { ids?: string[] }][] } }).response
              ?.methodResponses[0]?.[1].ids?.length
              ? true
              : undefined,
          15_000,
        );
      }
      await world.writeUserPolicy({ send: { mode: 'known' } });
      const known = await send({ TO: carol, SUBJECT: `Guard ${kind}: to carol` });
      expect(known.code, known.stdout).toBe(0);
      const unknown = await send({ TO: stranger, SUBJECT: `Guard ${kind}: to dave` });
      expect(unknown.code).toBe(3);
      expect(unknown.json).toMatchObject({ error: { details: { rule: { rule: 'send.mode=known' } } } });
    });

    it.skipIf(terminalSkipReason() !== undefined)(
      "holds mail that needs a yes as a draft, and the operator's approval sends it once",
      async () => {
        await world.writeUserPolicy({ send: { mode: 'confirm' } });
        const subject = `Guard ${kind}: held`;
        const run = await send({ TO: world.address.bob, SUBJECT: subject });
        expect(run.code, run.stderr).toBe(0);
        const held = (run.json as { awaitingApproval: { outboxId: string }[] }).awaitingApproval[0]!;
        const traces = await world.traces(subject);
        expect(traces.bob).toEqual([]);
        expect(traces.alice).toEqual([
          expect.objectContaining({ keywords: expect.objectContaining({ $draft: true }) }),
        ]);
        const approved = await runCliInTerminal(
          ['outbox', 'approve', held.outboxId, '--credentials-dir', world.alice.dir],
          { env: world.env, answer: 'yes\n' },
        );
        expect(approved.code, approved.stdout).toBe(0);
        await arrives(subject);
        const again = await runCliInTerminal(
          ['outbox', 'approve', held.outboxId, '--credentials-dir', world.alice.dir],
          { env: world.env, answer: 'yes\n' },
        );
        expect(again.code).toBe(2);
        expect((await world.traces(subject)).bob).toHaveLength(1);
      },
    );

    it('through the MCP server: refuses as an error naming the rule, and holds where the host cannot ask', async () => {
      const server = await connectMcp({ env: { ...world.env, AGENT_MAILBOX_CREDENTIALS_DIR: world.alice.dir } });
      try {
        await world.writeUserPolicy({ send: { mode: 'confirm', block: ['evil.test'] } });
        const refused = await server.client.callTool({
          name: 'jmap_request',
          arguments: { ops_file: 'send_mail', vars: { TO: eve, SUBJECT: `Guard ${kind}: mcp refused`, BODY: 'x' } },
        });
        expect(refused.isError).toBe(true);
        expect(structured(refused).error).toMatchObject({
          code: 'policy_refused',
          details: { rule: { rule: 'send.block', entry: 'evil.test' } },
        });
        await nothingLeft(`Guard ${kind}: mcp refused`);
        const held = await server.client.callTool({
          name: 'jmap_request',
          arguments: {
            ops_file: 'send_mail',
            vars: { TO: world.address.bob, SUBJECT: `Guard ${kind}: mcp held`, BODY: 'x' },
          },
        });
        expect(resultText(held)).toMatch(/^HELD: /);
        expect((await world.traces(`Guard ${kind}: mcp held`)).bob).toEqual([]);
      } finally {
        await server.close();
      }
    });
  });
}
