import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { repoBin, runCli, runCliInProcess, runShell } from '../helpers/run-cli.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// Issue 3 "Done when": the built CLI as a subprocess against the sandbox.
const sandbox = await startTestSandbox({ difficulty: 2, sessionTtlSeconds: 4, capabilityTtlSeconds: 2 });
const env = {
  AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
  AGENT_MAILBOX_API_URL: sandbox.apiUrl,
  AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
  AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
  // Keeps register --watch scheduled away from the real crontab of whoever runs the tests.
  AGENT_MAILBOX_CRONTAB: '/nonexistent/crontab',
};

async function register(dir: string, username: string, extra: string[] = []) {
  return runCli(['register', '--username', username, '--watch', 'on-demand', '--credentials-dir', dir, ...extra], {
    env,
  });
}

// The parallel-processes test needs an inbox whose tokens have expired (session 4 s, capability
// 2 s). It is registered as the file starts, so the expiry runs out while the other tests run
// instead of being waited for; run alone, the test waits for what is left of it.
const expiredParent = await mkdtemp(join(tmpdir(), 'agent-mailbox-test-'));
afterAll(() => rm(expiredParent, { recursive: true, force: true }));
const expiredInbox = (async () => {
  const dir = join(expiredParent, 'credentials');
  const registered = await register(dir, 'cli-parallel');
  return { dir, registered, expiresAt: Date.now() + 5_000 };
})();

describe('agent-mailbox CLI', () => {
  it('offers every command of the operations table, and only those', async () => {
    const help = await runCli(['--help'], { env });
    expect(help.code).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z_]+)\b/gm)].map((m) => m[1]);
    const topLevel = [...new Set(operations.map((op) => (op.cli?.path ?? [op.name])[0]))];
    expect(listed.sort()).toEqual([...topLevel].sort());
    const watchHelp = await runCli(['watch', '--help'], { env });
    const watchListed = [...watchHelp.stdout.matchAll(/^ {2}([a-z_]+)\b/gm)]
      .map((m) => m[1])
      .filter((name) => name !== 'help');
    expect(watchListed.sort()).toEqual(
      operations
        .filter((op) => op.cli?.path?.[0] === 'watch')
        .map((op) => op.cli?.path?.[1])
        .sort(),
    );
  });

  it('registers, replays idempotently, and refuses a different username leading with the loss of access', async () => {
    const dir = await tempCredentialsDir();
    const first = await register(dir, 'cli-alice');
    expect(first.code, first.stderr).toBe(0);
    const result = first.json as Record<string, unknown>;
    expect(result.mode).toBe('signup');
    expect(result.inbox).toBe(`cli-alice@${sandbox.domain}`);
    const stored = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { apiKey: string };
    expect(first.stdout).not.toContain(stored.apiKey);
    expect(first.stderr).not.toContain(stored.apiKey);

    const again = await register(dir, 'cli-alice');
    expect(again.code).toBe(0);
    expect((again.json as Record<string, unknown>).mode).toBe('existing');

    const other = await register(dir, 'cli-mallory');
    expect(other.code).toBe(1);
    const error = (other.json as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe('credentials_exist');
    expect(error.message.toLowerCase()).toMatch(/^.*(lose|loss)/);
    expect(error.hint).toMatch(/credentials.dir/);
    const after = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { apiKey: string };
    expect(after.apiKey).toBe(stored.apiKey);
  });

  it('logs in with an existing apiKey into a fresh directory and shows the key only on request', async () => {
    const dir = await tempCredentialsDir();
    const shown = await register(dir, 'cli-bobby', ['--show-api-key']);
    expect(shown.code, shown.stderr).toBe(0);
    const apiKey = (shown.json as { apiKey: string }).apiKey;
    expect(apiKey).toMatch(/^amk_/);
    const second = await tempCredentialsDir();
    const login = await runCli(['register', '--api-key', apiKey, '--watch', 'on-demand', '--credentials-dir', second], {
      env,
    });
    expect(login.code, login.stderr).toBe(0);
    expect((login.json as Record<string, unknown>).mode).toBe('login');
    expect((login.json as Record<string, unknown>).inbox).toBe(`cli-bobby@${sandbox.domain}`);
    expect(login.stdout).not.toContain(apiKey);

    const wrongKey = `${apiKey.slice(0, -4)}0000`;
    const refused = await runCli(
      ['register', '--api-key', wrongKey, '--watch', 'on-demand', '--credentials-dir', await tempCredentialsDir()],
      { env },
    );
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({
      error: {
        code: 'auth_rejected',
        hint: expect.stringMatching(/whole apiKey.*nothing was stored.*register a new inbox with a username/),
      },
    });
    expect(refused.stdout + refused.stderr).not.toContain(wrongKey);
  });

  it('refuses a watch value that is neither choice with the same JSON error document and exit code 2', async () => {
    const run = await runCli(
      ['register', '--username', 'cli-badwatch', '--watch', 'daily', '--credentials-dir', await tempCredentialsDir()],
      { env },
    );
    expect(run.code).toBe(2);
    expect(run.json).toMatchObject({
      error: { code: 'usage', message: expect.stringMatching(/"scheduled".*"on-demand".*not "daily"/) },
    });
  });

  it('refuses register without watch, naming both values, with exit code 2', async () => {
    const dir = await tempCredentialsDir();
    const run = await runCli(['register', '--username', 'cli-nowatch', '--credentials-dir', dir], { env });
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toMatch(/scheduled/);
    expect(run.stdout + run.stderr).toMatch(/on-demand/);
    expect(run.stdout + run.stderr).toMatch(/operator/);
  });

  it('points a mistyped command or flag at the help that has the right one (exit 2)', async () => {
    const work = await mkdtemp(join(tmpdir(), 'cli-usage-'));
    try {
      const flag = await runCliInProcess(['watch', 'status', '--credentials', work], { env, cwd: work });
      expect(flag.code).toBe(2);
      expect(flag.stderr).toContain("unknown option '--credentials'");
      expect(flag.stderr).toContain(`next: node ${repoBin} watch status --help lists its options.`);
      const command = await runCliInProcess(['jmap-request'], { env, cwd: work });
      expect(command.code).toBe(2);
      expect(command.stderr).toContain('(Did you mean jmap_request?)');
      expect(command.stderr).toContain(
        `next: node ${repoBin} --help lists the commands; node ${repoBin} help explains them.`,
      );
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('reports forbiddenFrom as a failure with exit code 1', async () => {
    const dir = await tempCredentialsDir();
    expect((await register(dir, 'cli-carol')).code).toBe(0);
    const ops = JSON.stringify([
      [
        'Email/set',
        {
          accountId: '$ACCOUNT_ID',
          create: {
            d: {
              mailboxIds: { $DRAFTS_MAILBOX_ID: true },
              from: [{ email: 'someone-else@example.com' }],
              to: [{ email: 'x@example.com' }],
              subject: 's',
              bodyValues: { b: { value: 'hi' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
          },
        },
        'c1',
      ],
      [
        'EmailSubmission/set',
        { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#d', identityId: '$IDENTITY_ID' } } },
        'c2',
      ],
    ]);
    const run = await runCli(['jmap_request', '--ops', ops, '--credentials-dir', dir], { env });
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toContain('forbiddenFrom');
  });

  it('runs ten parallel jmap_request processes on one directory with expired tokens: one proof of work, no corrupt file', async () => {
    const { dir, registered, expiresAt } = await expiredInbox;
    expect(registered.code, registered.stderr).toBe(0);
    const apiKey = (JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { apiKey: string }).apiKey;
    // Both the session (4 s) and the capability (2 s) must have expired.
    if (Date.now() < expiresAt) await new Promise((r) => setTimeout(r, expiresAt - Date.now()));
    const loginsBefore = sandbox.stats().logins;
    const runs = await Promise.all(
      Array.from({ length: 10 }, () =>
        runCli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], { env, timeoutMs: 90_000 }),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(sandbox.stats().logins - loginsBefore).toBe(1);
    const after = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { apiKey: string };
    expect(after.apiKey).toBe(apiKey);
  });

  it('sends a file as an attachment and downloads it back into the working directory byte for byte', async () => {
    const dir = await tempCredentialsDir();
    const reg = await register(dir, 'cli-files');
    expect(reg.code, reg.stderr).toBe(0);
    const inbox = (reg.json as { inbox: string }).inbox;
    const work = join(dir, '..', 'work');
    await mkdir(work, { recursive: true });
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13, 0x7f]);
    await writeFile(join(work, 'payload.bin'), bytes);
    // send_mail takes no files: refused here (exit 2), with the command that does send it as the next step.
    const vars = JSON.stringify({ TO: inbox, SUBJECT: 'file', BODY: 'see attachment' });
    // Run from a directory outside the checkout: the suggested command names the entry absolutely.
    const refused = await runCli(
      [
        'jmap_request',
        '--ops-file',
        'send_mail',
        '--attachment',
        join(work, 'payload.bin'),
        '--vars',
        vars,
        '--credentials-dir',
        dir,
      ],
      { env, cwd: work },
    );
    expect(refused.code).toBe(2);
    const nextCommand = (refused.json as { error: { code: string; nextCommand: string } }).error.nextCommand;
    expect((refused.json as { error: { code: string } }).error.code).toBe('attachment_invalid');
    expect(nextCommand).toBe(
      `node ${repoBin} jmap_request --ops-file send_mail_blob_attachment --vars '${vars}' --attachment ${join(work, 'payload.bin')} --credentials-dir ${dir}`,
    );
    // The suggested command line, run by a shell exactly as printed (no agent-mailbox on PATH), sends the file.
    const sent = await runShell(nextCommand, env, work);
    expect(sent.code, sent.stderr + sent.stdout).toBe(0);
    const query = JSON.stringify([
      [
        'Email/query',
        { accountId: '$ACCOUNT_ID', filter: { inMailbox: '$INBOX_MAILBOX_ID', hasAttachment: true } },
        'q',
      ],
      [
        'Email/get',
        {
          accountId: '$ACCOUNT_ID',
          '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
          properties: ['attachments'],
        },
        'g',
      ],
    ]);
    const listed = await runCli(['jmap_request', '--ops', query, '--credentials-dir', dir], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const blobId = /"blobId":\s*"([^"]+)"/.exec(listed.stdout)?.[1];
    expect(blobId).toBeDefined();
    const saved = await runCli(
      ['jmap_request', '--download', JSON.stringify({ blob_id: blobId, name: 'copy.bin' }), '--credentials-dir', dir],
      { env, cwd: work },
    );
    expect(saved.code, saved.stderr + saved.stdout).toBe(0);
    expect(Buffer.compare(await readFile(join(work, 'copy.bin')), bytes)).toBe(0);

    // Again: the file is never overwritten, and the next step saves under a free name.
    await writeFile(join(work, 'copy.bin'), 'mine');
    const again = await runCli(
      ['jmap_request', '--download', JSON.stringify({ blob_id: blobId, name: 'copy.bin' }), '--credentials-dir', dir],
      { env, cwd: work },
    );
    expect(again.code).toBe(2);
    const refusal = (again.json as { error: { code: string; hint: string; nextCommand: string } }).error;
    expect(refusal.code).toBe('attachment_invalid');
    expect(refusal.hint).toMatch(/free name, e\.g\. "copy-1\.bin"/);
    expect(refusal.nextCommand).toBe(
      `node ${repoBin} jmap_request --download '${JSON.stringify({ blob_id: blobId, name: 'copy-1.bin' })}' --credentials-dir ${dir}`,
    );
    const savedAgain = await runShell(refusal.nextCommand, env, work);
    expect(savedAgain.code, savedAgain.stderr + savedAgain.stdout).toBe(0);
    expect(await readFile(join(work, 'copy.bin'), 'utf8')).toBe('mine');
    expect(Buffer.compare(await readFile(join(work, 'copy-1.bin')), bytes)).toBe(0);
  });

  it('logs each HTTP exchange on stderr in debug mode, with no secret in it, and stdout unchanged', async () => {
    const dir = await tempCredentialsDir();
    expect((await register(dir, 'cli-debug')).code).toBe(0);
    const { apiKey } = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { apiKey: string };
    const quiet = await runCli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], { env });
    const debug = await runCli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
      env: { ...env, AGENT_MAILBOX_DEBUG: '1' },
    });
    expect(debug.code, debug.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(debug.stderr).toMatch(
      /^agent-mailbox debug: POST http:\/\/127\.0\.0\.1:\d+\/jmap → HTTP 200, \d+ bytes in \d+ ms/m,
    );
    expect(debug.stdout.replace(/UNTRUSTED-MAIL-[0-9a-f]+/g, '')).toBe(
      quiet.stdout.replace(/UNTRUSTED-MAIL-[0-9a-f]+/g, ''),
    );
    expect(debug.stderr).not.toContain(apiKey);
    expect(debug.stderr).not.toMatch(/eyJ[\w-]{10,}/);
  });

  it('answers an unknown help topic with exit code 2 and the list of topics', async () => {
    const run = await runCli(['help', 'nope'], { env });
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toMatch(/presets/);
    const ok = await runCli(['help', 'presets'], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/send_mail/);
  });
});
