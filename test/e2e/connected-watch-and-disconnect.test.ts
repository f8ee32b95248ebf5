import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import {
  connectDirectory,
  oauthCliEnv,
  rewriteGrant,
  startOAuthSandbox,
  storedGrant,
} from '../helpers/oauth-directory.js';
import { builtCli, runCli, runCliInProcess, type CliRun } from '../helpers/run-cli.js';
import { createStandInCrontab, type TestCrontab } from '../helpers/test-crontab.js';
import { decodeJwt } from '../../sandbox/test/helpers/sandbox.js';
import { hang } from '../fault/fault-servers.js';

// The daily job and the wake per inbox of a connected account, the wake's read-only tokens, and
// disconnect: revoke first, then remove everything the connection left (files, folders, jobs).

let sandbox: RunningSandbox;
let base: string;
let table: TestCrontab;
const own = 'ada-inbox@agent-mailbox.test';
const ops = 'ops@acme.test';

beforeAll(async () => {
  sandbox = await startOAuthSandbox();
  base = await mkdtemp(join(tmpdir(), 'connected-watch-'));
  await mkdir(join(base, 'cron'));
  table = await createStandInCrontab(join(base, 'cron'));
});
afterAll(async () => {
  table.dispose();
  await rm(base, { recursive: true, force: true });
});

const env = (): Record<string, string> => oauthCliEnv(sandbox, { AGENT_MAILBOX_CRONTAB: table.bin });
const cli = (args: string[]): Promise<CliRun> => runCliInProcess([...args, '--json'], { env: env() });
let count = 0;
async function connected(scope = 'mail.read mail.send'): Promise<string> {
  count += 1;
  const dir = join(base, `account-${count}`);
  await connectDirectory(sandbox, dir, { scope });
  return dir;
}
async function deliver(to: string, subject: string): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: sandbox.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  await transport.sendMail({ from: 'friend@outside.test', to, subject, text: 'hello' });
  transport.close();
}

describe('watch on a connected account', () => {
  it("installs the default inbox's job, or one per inbox named, each reading only its inbox from its own folder", async () => {
    table.write('');
    const dir = await connected();
    const fallback = await cli(['watch', 'install', '--credentials-dir', dir]);
    expect(fallback.code, fallback.stderr).toBe(0);
    expect(fallback.json).toMatchObject({
      installed: true,
      inbox: own,
      digestPath: join(dir, 'inboxes', own, 'inbox-digest.md'),
    });
    expect(table.list().trim().split('\n')).toHaveLength(1);
    expect(table.list()).toContain(
      `wake --credentials-dir ${dir} --inbox ${own} >> ${join(dir, 'inboxes', own, 'wake.log')}`,
    );

    const both = await cli(['watch', 'install', '--credentials-dir', dir, '--inbox', own, '--inbox', ops]);
    expect(both.code, both.stderr).toBe(0);
    const statuses = (both.json as { inboxes: Array<{ inbox: string; marker: string; changed: boolean }> }).inboxes;
    expect(statuses.map((s) => [s.inbox, s.changed])).toEqual([
      [own, false],
      [ops, true],
    ]);
    expect(new Set(statuses.map((s) => s.marker)).size).toBe(2);
    const lines = table.list().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`--inbox ${ops} >> ${join(dir, 'inboxes', ops, 'wake.log')}`);

    const shown = await cli(['watch', 'status', '--credentials-dir', dir, '--inbox', ops]);
    expect(shown.json).toMatchObject({
      installed: true,
      inbox: ops,
      remove: expect.stringContaining(`watch remove --credentials-dir ${dir} --inbox ${ops}`),
    });
    const removed = await cli(['watch', 'remove', '--credentials-dir', dir, '--inbox', ops]);
    expect(removed.json).toMatchObject({ installed: false, changed: true });
    expect(table.list().trim().split('\n')).toHaveLength(1);

    const stranger = await cli(['watch', 'install', '--credentials-dir', dir, '--inbox', 'stranger@else.test']);
    expect(stranger.code).toBe(1);
    expect((stranger.json as { error: { code: string } }).error.code).toBe('inbox_unknown');
  });

  it("wakes for one inbox with a token that cannot send: the woken agent's send is refused by the operator's wake rule, and the token in hand by the service", async () => {
    const dir = await connected();
    await deliver(own, 'Wake me up');
    const tokenFile = join(base, 'wake-token.txt');
    // The woken "agent": records the token its own call used, then tries to send through the CLI.
    const agent = `node ${builtCli} jmap_request --ops-file send_mail --vars '{"TO":"someone@example.org","SUBJECT":"Leaked","BODY":"x"}' --credentials-dir {credentials_dir} --inbox ${own} --json > ${join(base, 'agent-send.json')}; cp ${join(dir, 'access-tokens.json')} ${tokenFile}`;
    const woken = await runCli(['wake', '--credentials-dir', dir, '--wake-command', agent], { env: env() });
    expect(woken.json).toMatchObject({ inbox: own, newMail: 1, agent: { ran: true } });
    // The local guard refuses first: a wake keeps its inbox read-only, whatever the token could do.
    const refused = JSON.parse(await readFile(join(base, 'agent-send.json'), 'utf8')) as {
      error: { code: string; details: { rule: { rule: string } } };
    };
    expect(refused.error).toMatchObject({ code: 'policy_refused', details: { rule: { rule: 'wake.readOnly' } } });
    expect((await sandbox.outbox()).filter((m) => m.subject === 'Leaked')).toEqual([]);
    // The tokens in hand while the wake ran: the narrowed one has mail.read only, and the service
    // itself refuses a submission made with it, should anything get past the local guard.
    const held = (JSON.parse(await readFile(tokenFile, 'utf8')) as { tokens: Array<{ token: string }> }).tokens;
    const readOnly = held.find((t) => decodeJwt(t.token)['scope'] === 'mail.read');
    expect(readOnly).toBeDefined();
    const listed = await cli(['list_inboxes', '--credentials-dir', dir]);
    const serviceAccountId =
      (listed.json as { inboxes: Array<{ address: string; accountId: string }> }).inboxes.find((i) => i.address === own)
        ?.accountId ?? '';
    const headers = {
      authorization: `Bearer ${readOnly?.token ?? ''}`,
      'x-service-account-id': serviceAccountId,
      'content-type': 'application/json',
    };
    const sessionResponse = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, { headers });
    const sessionText = await sessionResponse.text();
    expect(sessionResponse.status, sessionText).toBe(200);
    const session = JSON.parse(sessionText) as { apiUrl: string; primaryAccounts: Record<string, string> };
    const accountId = session.primaryAccounts['urn:ietf:params:jmap:mail'] ?? '';
    const submit = await fetch(session.apiUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:submission'],
        methodCalls: [['EmailSubmission/set', { accountId, create: { s: { emailId: 'none' } } }, 'c0']],
      }),
    });
    expect(submit.status).toBe(403);
    expect(submit.headers.get('www-authenticate')).toContain('insufficient_scope');
    // Outside a wake, the same grant sends.
    const later = await cli([
      'jmap_request',
      '--ops-file',
      'send_mail',
      '--vars',
      JSON.stringify({ TO: 'someone@example.org', SUBJECT: 'Sent by day', BODY: 'x' }),
      '--credentials-dir',
      dir,
    ]);
    expect(later.code, later.stdout).toBe(0);
    expect((await sandbox.outbox()).map((m) => m.subject)).toContain('Sent by day');
  });

  it("keeps each inbox's wake state apart", async () => {
    const dir = await connected('mail.read');
    await deliver(own, 'Only for the default inbox');
    const first = await cli(['wake', '--credentials-dir', dir, '--inbox', ops]);
    expect(first.json).toMatchObject({ inbox: ops, newMail: 0 });
    // A first wake looks back over the last day: earlier tests' mail to this inbox counts too.
    const second = await cli(['wake', '--credentials-dir', dir]);
    expect(second.json).toMatchObject({ inbox: own, stateAdvanced: true });
    expect((second.json as { newMail: number }).newMail).toBeGreaterThanOrEqual(1);
    expect(await readFile(join(dir, 'inboxes', own, 'inbox-digest.md'), 'utf8')).toContain(
      'Only for the default inbox',
    );
    expect(await readFile(join(dir, 'inboxes', ops, 'inbox-digest.md'), 'utf8')).not.toContain(
      'Only for the default inbox',
    );
    const again = await cli(['wake', '--credentials-dir', dir, '--inbox', own]);
    expect(again.json).toMatchObject({ inbox: own, newMail: 0 });
  });
});

describe('disconnect', () => {
  it("revokes the grant, then removes it, its inboxes' folders and their daily jobs", async () => {
    table.write('17 3 * * * /usr/bin/true nightly\n');
    const dir = await connected();
    await cli(['watch', 'install', '--credentials-dir', dir, '--inbox', own, '--inbox', ops]);
    await cli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir]);
    const accessToken =
      (JSON.parse(await readFile(join(dir, 'access-tokens.json'), 'utf8')) as { tokens: Array<{ token: string }> })
        .tokens[0]?.token ?? '';
    const run = await cli(['disconnect', '--credentials-dir', dir]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.json).toMatchObject({ revoked: true, inboxes: [own, ops] });
    expect(await readdir(dir)).toEqual([]);
    expect(table.list()).toBe('17 3 * * * /usr/bin/true nightly\n');
    const agents = await fetch(`${sandbox.authUrl}/api/v1/agents`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(agents.status).toBe(401);
    const after = await cli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir]);
    expect(after.code).toBe(1);
    expect((after.json as { error: { code: string } }).error.code).toBe('credentials_missing');
  });

  it('removes nothing when the service cannot be asked, and --local-only removes the files all the same', async () => {
    const dir = await connected();
    const fault = await hang();
    await rewriteGrant(dir, (grant) => ({
      ...grant,
      server: { ...grant['server'], revocation_endpoint: `${fault.url}/oauth/revoke` },
    }));
    const before = await storedGrant(dir);
    const failed = await runCliInProcess(['disconnect', '--credentials-dir', dir, '--json'], {
      env: { ...env(), AGENT_MAILBOX_TIMEOUT_MS: '500' },
    });
    expect(failed.code).toBe(1);
    expect((failed.json as { error: { code: string } }).error.code).toBe('timeout');
    expect(await storedGrant(dir)).toEqual(before);
    const local = await cli(['disconnect', '--credentials-dir', dir, '--local-only']);
    expect(local.json).toMatchObject({
      revoked: false,
      next: [expect.stringContaining('the person revokes it in the dashboard')],
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a directory of an inbox registered by proof of work, changing nothing', async () => {
    const dir = join(base, 'pow');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(
      join(dir, 'credentials.json'),
      JSON.stringify({ apiKey: 'amk_keep_this_key_0123456789', inboxId: 'mine' }),
      { mode: 0o600 },
    );
    const run = await cli(['disconnect', '--credentials-dir', dir]);
    expect(run.code).toBe(2);
    expect((run.json as { error: { message: string } }).error.message).toContain('not a connected account');
    expect(await readdir(dir)).toEqual(['credentials.json']);
  });
});
