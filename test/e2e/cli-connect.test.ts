import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { oauthCliEnv, startOAuthSandbox } from '../helpers/oauth-directory.js';
import { runCli, runCliInProcess } from '../helpers/run-cli.js';

// `agent-mailbox connect` as the operator runs it, with BROWSER set to a script this test controls
// (a person who approves at once: the sandbox auto-approves), and list_inboxes on both kinds of
// directory.

let sandbox: RunningSandbox;
let base: string;
let browser: string;

beforeAll(async () => {
  sandbox = await startOAuthSandbox();
  base = await mkdtemp(join(tmpdir(), 'cli-connect-'));
  browser = join(base, 'browser.mjs');
  // Follows the authorization redirect to connect's loopback listener, as a browser would, and
  // keeps the URL it was given so the test can look at it.
  await writeFile(
    browser,
    `#!${process.execPath}\nimport { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(join(base, 'opened.txt'))}, process.argv[2] + '\\n');\nawait (await fetch(process.argv[2])).text();\n`,
  );
  await chmod(browser, 0o755);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('agent-mailbox connect', () => {
  it('opens BROWSER on the consent link and stores the grant; the JSON result lists the inboxes and recommends read-only', async () => {
    const dir = join(base, 'ada');
    const run = await runCli(['connect', '--credentials-dir', dir, '--scope', 'read,send'], {
      env: oauthCliEnv(sandbox, { BROWSER: browser }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /^Opening your browser to sign in and approve\. If it does not open, visit:\nhttp:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?/,
    );
    const opened = (await readFile(join(base, 'opened.txt'), 'utf8')).trim();
    expect(run.stderr).toContain(opened);
    expect(run.json).toMatchObject({
      credentialsDir: dir,
      scope: 'mail.read mail.send',
      defaultInbox: 'ada-inbox@agent-mailbox.test',
    });
    expect((run.json as { next: string[] }).next).toContain(
      'This grant can send mail. For an agent that only reads, connect with --scope read: the service itself then refuses every send.',
    );
    expect((await stat(join(dir, 'oauth.json'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a scope other than read or read,send before anything happens (exit 2)', async () => {
    const run = await runCliInProcess(
      ['connect', '--credentials-dir', join(base, 'nope'), '--scope', 'send', '--json'],
      { env: oauthCliEnv(sandbox) },
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      'scope must be \\"read\\" (recommended: the service refuses every send) or \\"read,send\\"',
    );
  });
});

describe("list_inboxes and the inbox choice on a directory of the agent's own inbox", () => {
  it('lists the one inbox, accepts its own name as inbox, and refuses another', async () => {
    const dir = join(base, 'own');
    const env = oauthCliEnv(sandbox);
    const registered = await runCliInProcess(
      ['register', '--username', 'own-inbox', '--watch', 'on-demand', '--credentials-dir', dir, '--json'],
      { env },
    );
    expect(registered.code, registered.stdout).toBe(0);
    const listed = await runCliInProcess(['list_inboxes', '--credentials-dir', dir, '--json'], { env });
    expect(listed.json).toMatchObject({
      kind: 'own',
      default: 'own-inbox@agent-mailbox.test',
      inboxes: [{ address: 'own-inbox@agent-mailbox.test', isDefault: true }],
    });
    const named = await runCliInProcess(
      [
        'jmap_request',
        '--ops-file',
        'list_inbox',
        '--credentials-dir',
        dir,
        '--inbox',
        'own-inbox@agent-mailbox.test',
        '--json',
      ],
      { env },
    );
    expect(named.code, named.stdout).toBe(0);
    // A directory of one's own inbox does not name it in every result (there is nothing to choose).
    expect(named.json).not.toHaveProperty('inbox');
    const other = await runCliInProcess(
      ['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir, '--inbox', 'ops@acme.test', '--json'],
      { env },
    );
    expect(other.code).toBe(1);
    expect((other.json as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'inbox_unknown',
      message: `${dir} holds one inbox, own-inbox@agent-mailbox.test, not "ops@acme.test".`,
    });
  });
});
