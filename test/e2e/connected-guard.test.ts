import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { connectDirectory, oauthCliEnv, startOAuthSandbox } from '../helpers/oauth-directory.js';
import { runCliInProcess, type CliRun } from '../helpers/run-cli.js';

// The operator's rules on a connected account (one grant over two inboxes): each inbox has its own
// layer in its own folder, written by `policy … --inbox` and read by the send guard and the receive
// screen for that inbox alone; the user layer binds both.

let sandbox: RunningSandbox;
let base: string;
let dir: string;
const own = 'ada-inbox@agent-mailbox.test';
const ops = 'ops@acme.test';

beforeAll(async () => {
  sandbox = await startOAuthSandbox();
  base = await mkdtemp(join(tmpdir(), 'connected-guard-'));
  dir = join(base, 'account');
  await connectDirectory(sandbox, dir, { scope: 'mail.read mail.send' });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const env = (): Record<string, string> =>
  oauthCliEnv(sandbox, { HOME: join(base, 'home'), XDG_CONFIG_HOME: join(base, 'config') });
const cli = (args: string[]): Promise<CliRun> => runCliInProcess([...args, '--json'], { env: env() });
const send = (to: string, subject: string, inbox?: string): Promise<CliRun> =>
  cli([
    'jmap_request',
    '--ops-file',
    'send_mail',
    '--vars',
    JSON.stringify({ TO: to, SUBJECT: subject, BODY: 'x' }),
    '--credentials-dir',
    dir,
    ...(inbox ? ['--inbox', inbox] : []),
  ]);
const sentSubjects = async (): Promise<string[]> => (await sandbox.outbox()).map((m) => m.subject);
const errorOf = (run: CliRun): { code: string; details?: { rule?: { layer: string; rule: string } } } =>
  (run.json as { error: { code: string } }).error;

describe("the operator's rules on a connected account", () => {
  it("keeps each inbox's own layer in its own folder, and the guard applies it to that inbox alone", async () => {
    const blocked = await cli(['policy', 'block-send', 'eve@evil.test', '--credentials-dir', dir, '--inbox', ops]);
    expect(blocked.code, blocked.stderr).toBe(0);
    await access(join(dir, 'inboxes', ops, 'policy.json'));
    await expect(access(join(dir, 'policy.json'))).rejects.toThrow();

    const refused = await send('eve@evil.test', 'From ops to eve', ops);
    expect(refused.code).toBe(3);
    expect(errorOf(refused)).toMatchObject({
      code: 'policy_refused',
      details: { rule: { layer: 'inbox', rule: 'send.block' } },
    });
    const allowed = await send('eve@evil.test', 'From the default inbox to eve');
    expect(allowed.code, allowed.stdout).toBe(0);
    const subjects = await sentSubjects();
    expect(subjects).toContain('From the default inbox to eve');
    expect(subjects).not.toContain('From ops to eve');

    const shownOps = await cli(['policy', 'show', '--credentials-dir', dir, '--inbox', ops]);
    expect(JSON.stringify(shownOps.json)).toContain('eve@evil.test');
    const shownDefault = await cli(['policy', 'show', '--credentials-dir', dir]);
    expect(JSON.stringify(shownDefault.json)).not.toContain('eve@evil.test');
  });

  it('binds every inbox of the account by the user layer', async () => {
    expect((await cli(['policy', 'block-send', '--user', 'mallory@evil.test'])).code).toBe(0);
    for (const inbox of [own, ops]) {
      const refused = await send('mallory@evil.test', `To mallory from ${inbox}`, inbox);
      expect(refused.code).toBe(3);
      expect(errorOf(refused)).toMatchObject({
        code: 'policy_refused',
        details: { rule: { layer: 'user', rule: 'send.block' } },
      });
    }
    expect((await sentSubjects()).filter((s) => s.startsWith('To mallory'))).toEqual([]);
  });

  it('holds mail from a blocked sender back from the inbox whose layer blocks it, not from the other', async () => {
    expect(
      (await cli(['policy', 'block-receive', 'spam@outside.test', '--credentials-dir', dir, '--inbox', own])).code,
    ).toBe(0);
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    for (const to of [own, ops])
      await transport.sendMail({ from: 'spam@outside.test', to, subject: `Spam for ${to}`, text: 'buy' });
    transport.close();
    const listing = async (inbox: string): Promise<string> => {
      const run = await cli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir, '--inbox', inbox]);
      expect(run.code, run.stdout).toBe(0);
      return JSON.stringify(run.json);
    };
    await expect.poll(() => listing(ops), { timeout: 10_000 }).toContain(`Spam for ${ops}`);
    expect(await listing(own)).not.toContain(`Spam for ${own}`);
  });

  it('holds mail in the outbox of the inbox that sent it, and the outbox commands read it with --inbox', async () => {
    expect((await cli(['policy', 'set', '--send', 'confirm', '--credentials-dir', dir, '--inbox', ops])).code).toBe(0);
    const sent = await send('ana@example.org', 'Needs a yes from ops', ops);
    expect(sent.code, sent.stdout).toBe(0);
    const id = (sent.json as { awaitingApproval: { outboxId: string }[] }).awaitingApproval[0]?.outboxId;
    expect(id).toMatch(/^h-/);
    const listed = await cli(['outbox', 'list', '--credentials-dir', dir, '--inbox', ops]);
    expect((listed.json as { held: { id: string }[] }).held.map((h) => h.id)).toEqual([id]);
    const other = await cli(['outbox', 'list', '--credentials-dir', dir]);
    expect((other.json as { held: unknown[] }).held).toEqual([]);
    const log = await cli(['outbox', 'log', '--credentials-dir', dir, '--inbox', ops]);
    expect(JSON.stringify(log.json)).toContain('Needs a yes from ops');
    expect(await sentSubjects()).not.toContain('Needs a yes from ops');
  });

  it('refuses a policy command whose inbox the account cannot name, writing nothing', async () => {
    const run = await cli([
      'policy',
      'block-send',
      'x@evil.test',
      '--credentials-dir',
      dir,
      '--inbox',
      'stranger@else.test',
    ]);
    expect(run.code).not.toBe(0);
    expect(errorOf(run).code).toBe('inbox_unknown');
    await expect(access(join(dir, 'inboxes', 'stranger@else.test'))).rejects.toThrow();
  });
});
