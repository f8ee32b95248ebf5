import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import {
  connectMcp,
  printStderrOnFailure,
  resultText,
  sandboxEnv,
  structured,
  type McpConnection,
} from '../helpers/connect-mcp.js';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import { connectDirectory, startOAuthSandbox } from '../helpers/oauth-directory.js';

// The MCP server on a connected account (a person's grant over two inboxes, one on a custom
// domain): the model lists the inboxes, picks one per call, and every result names it.

let sandbox: RunningSandbox;
let readOnlyDir: string;
let sendingDir: string;
let server: McpConnection | undefined;
const ops = 'ops@acme.test';
const own = 'ada-inbox@agent-mailbox.test';

printStderrOnFailure(() => [server]);

beforeAll(async () => {
  sandbox = await startOAuthSandbox();
});

async function call(
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; data: Record<string, unknown>; isError: boolean }> {
  const result = await server!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  return { text: resultText(result), data: structured(result), isError: result.isError === true };
}

describe('the MCP server on a connected account', () => {
  beforeAll(async () => {
    const base = await mkdtemp(join(tmpdir(), 'mcp-connected-'));
    cleanUpAfter(() => rm(base, { recursive: true, force: true }));
    readOnlyDir = join(base, 'read-only');
    sendingDir = join(base, 'sending');
    await connectDirectory(sandbox, readOnlyDir, { scope: 'mail.read' });
    await connectDirectory(sandbox, sendingDir, { scope: 'mail.read mail.send' });
    server = await connectMcp({ env: sandboxEnv(sandbox, readOnlyDir) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('offers list_inboxes, which shows both inboxes, their accountIds and the default', async () => {
    const listed = await call('list_inboxes', {});
    expect(listed.isError).toBe(false);
    const inboxes = listed.data['inboxes'] as Array<{ address: string; accountId: string; isDefault: boolean }>;
    expect(inboxes.map((i) => [i.address, i.isDefault])).toEqual([
      [own, true],
      [ops, false],
    ]);
    for (const inbox of inboxes) expect(inbox.accountId).toMatch(/^[0-9a-f-]{36}$/);
    expect(listed.text).toContain(`- ${ops} (accountId ${inboxes[1]?.accountId})`);
  });

  it('reads the default inbox without a choice and the chosen one with it, each result naming its inbox', async () => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({ from: 'friend@outside.test', to: own, subject: 'For the default inbox', text: 'hello' });
    transport.close();
    const fallback = await call('jmap_request', { ops_file: 'list_inbox' });
    expect(fallback.isError).toBe(false);
    expect(fallback.text.split('\n')[0]).toBe(`Inbox: ${own}`);
    expect(fallback.text).toContain('For the default inbox');
    expect(fallback.data).toMatchObject({ inbox: own, serviceAccountId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const chosen = await call('jmap_request', { ops_file: 'list_inbox', inbox: ops });
    expect(chosen.data['inbox']).toBe(ops);
    expect(chosen.text).not.toContain('For the default inbox');
  });

  it('fills $INBOX, $ACCOUNT_ID and $SERVICE_ACCOUNT_ID for the chosen inbox, a custom-domain one included', async () => {
    const listed = (await call('list_inboxes', {})).data['inboxes'] as Array<{ address: string; accountId: string }>;
    const uuid = listed.find((i) => i.address === ops)?.accountId;
    const run = await call('jmap_request', {
      ops: [['Email/query', { accountId: '$ACCOUNT_ID', filter: { to: '$INBOX', text: '$SERVICE_ACCOUNT_ID' } }, 'q']],
      inbox: ops,
      echo_request: true,
    });
    expect(run.isError, run.text).toBe(false);
    const request = run.data['request'] as { methodCalls: Array<[string, Record<string, unknown>, string]> };
    expect(request.methodCalls[0]?.[1]).toEqual({ accountId: ops, filter: { to: ops, text: uuid } });
  });

  it('refuses an inbox the account does not have, listing the ones it has', async () => {
    const refused = await call('jmap_request', { ops_file: 'list_inbox', inbox: 'stranger@else.test' });
    expect(refused.isError).toBe(true);
    expect((refused.data['error'] as { code: string }).code).toBe('inbox_unknown');
    expect(refused.text).toContain(`its inboxes: ${own}`);
    expect(refused.text).toMatch(/Next: .*list_inboxes/);
  });

  it('refuses a send on a read-only grant with insufficient_scope, naming the scope and that the operator grants it', async () => {
    const refused = await call('jmap_request', {
      ops_file: 'send_mail',
      vars: { TO: 'someone@example.org', SUBJECT: 'Must not leave', BODY: 'no' },
    });
    expect(refused.isError).toBe(true);
    expect(refused.data['error']).toMatchObject({ code: 'insufficient_scope', details: { scope: 'mail.send' } });
    expect(refused.text).toContain('lacks the mail.send scope');
    expect(refused.text).toContain(
      'Only the operator can grant mail.send: they run agent-mailbox connect --scope read,send',
    );
    expect(await sandbox.outbox()).toEqual([]);
  });

  it('sends from the custom-domain inbox of a grant that may send, and the other inbox receives it', async () => {
    const sender = await connectMcp({ env: sandboxEnv(sandbox, sendingDir) });
    try {
      const sent = await sender.client.callTool({
        name: 'jmap_request',
        arguments: { ops_file: 'send_mail', inbox: ops, vars: { TO: own, SUBJECT: 'From the ops desk', BODY: 'hi' } },
      });
      expect(sent.isError === true, resultText(sent)).toBe(false);
      expect(structured(sent)['inbox']).toBe(ops);
      const received = await sender.client.callTool({
        name: 'jmap_request',
        arguments: { ops_file: 'list_inbox', inbox: own },
      });
      expect(resultText(received)).toContain('From the ops desk');
      expect(resultText(received)).toContain(ops);
    } finally {
      await sender.close();
    }
  });

  it('waits for mail on the chosen inbox through the event stream, which carries its X-Service-Account-Id', async () => {
    await call('jmap_request', { ops_file: 'list_new' });
    const waiting = call('jmap_request', { ops_file: 'wait_for_mail', vars: { TIMEOUT_SECONDS: 30 } });
    // Delivered after the wait's first look (it reports progress once it waits); a delivery before it counts too.
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({
      from: 'friend@outside.test',
      to: own,
      subject: 'Awaited on the connected inbox',
      text: 'here',
    });
    transport.close();
    const waited = await waiting;
    expect(waited.isError, waited.text).toBe(false);
    expect(waited.text).toContain('Awaited on the connected inbox');
    expect(waited.data['waited']).toMatchObject({ mode: 'push' });
    expect(waited.data['inbox']).toBe(own);
  });
});
