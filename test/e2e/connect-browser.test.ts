import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import { chromiumSkipReason, launchHeadlessChromium } from '../../sandbox/test/helpers/headless-chromium.js';
import { oauthCliEnv } from '../helpers/oauth-directory.js';
import { builtCli, noCrontab, runCli } from '../helpers/run-cli.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { FormBrowser, hiddenField } from '../../sandbox/test/oauth/consent-form-client.js';
import { authorizeParams, pkce, registerClient } from '../../sandbox/test/oauth/oauth-test-client.js';

// Issue item 4: `agent-mailbox connect` from its printed link to the stored grant, with a person in
// a real browser (Debian's chromium through playwright-core): sign in, choose the inbox, untick
// mail.send, approve. Then the connection lists mail and the service refuses its send.

const skipReason = chromiumSkipReason;
if (skipReason) console.log(`[connect browser] skipped: ${skipReason}`);
const outputDir = fileURLToPath(new URL('../../test-output/', import.meta.url));

/** `connect --no-browser` as a real process: resolves with the link it prints, and later with its result. */
function startConnect(
  args: string[],
  env: Record<string, string>,
): { link: Promise<string>; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [builtCli, 'connect', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENT_MAILBOX_CRONTAB: noCrontab, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanUpAfter(() => void child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  let found: (link: string) => void = () => undefined;
  const link = new Promise<string>((resolve) => (found = resolve));
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    const printed = /^(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)$/m.exec(stderr)?.[1];
    if (printed) found(printed);
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  void done.then((result) => found(`(connect ended before printing a link: ${result.stderr})`));
  return { link, done };
}

describe.skipIf(skipReason !== undefined)('connect with a person in a real browser (headless Chromium)', () => {
  it('goes from the printed link through sign-in, inbox choice and an unticked mail.send to a stored read-only grant that lists mail and cannot send', async () => {
    const sandbox = await startTestSandbox({ oauth: { registrationRateLimit: false } });
    // Pat already owns two inboxes, made on the same pages over plain HTTP.
    const setup = await registerClient(sandbox.authUrl);
    const form = new FormBrowser(sandbox.authUrl);
    for (const name of ['pat-first', 'pat-second']) {
      const page = await form.get(`/oauth/authorize?${authorizeParams(sandbox, setup, pkce().challenge).toString()}`);
      const consent = page.html.includes('name="request"')
        ? page
        : await form.get(
            (
              await form.post('/oauth/sign-in', {
                csrf: hiddenField(page.html, 'csrf'),
                return_to: hiddenField(page.html, 'return_to'),
                name: 'Pat',
              })
            ).location ?? '',
          );
      await form.post('/oauth/consent', {
        csrf: hiddenField(consent.html, 'csrf'),
        request: hiddenField(consent.html, 'request'),
        inbox: 'new',
        new_inbox: name,
        scope: 'mail.read',
        decision: 'approve',
      });
    }
    const mail = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    await mail.sendMail({
      from: 'friend@example.test',
      to: 'pat-second@agent-mailbox.test',
      subject: 'Waiting in the second inbox',
      text: 'hello',
    });
    mail.close();

    const base = await mkdtemp(join(tmpdir(), 'connect-browser-'));
    cleanUpAfter(() => rm(base, { recursive: true, force: true }));
    const dir = join(base, 'pat');
    const env = oauthCliEnv(sandbox);
    const connect = startConnect(['--no-browser', '--scope', 'read,send', '--credentials-dir', dir], env);
    const link = await connect.link;
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?/);

    const context = await launchHeadlessChromium();
    const page = await context.newPage();
    await page.goto(link);
    await page.getByLabel('Your name').fill('Pat');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Connect agent-mailbox' }).waitFor();
    await page.getByRole('radio', { name: 'pat-second@agent-mailbox.test' }).check();
    const send = page.getByRole('checkbox', { name: /Send mail/ });
    expect(await send.isChecked()).toBe(true);
    await send.uncheck();
    await mkdir(outputDir, { recursive: true });
    const screenshot = join(outputDir, 'connect-consent-page.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect((await stat(screenshot)).size).toBeGreaterThan(1000);
    await page.getByRole('button', { name: 'Approve' }).click();
    // The browser lands on connect's loopback listener, which answers once the grant is stored.
    await page.getByRole('heading', { name: 'Connected' }).waitFor();
    await page.screenshot({ path: join(outputDir, 'connect-done-page.png') });

    const connected = await connect.done;
    expect(connected.code, connected.stderr).toBe(0);
    const outcome = JSON.parse(connected.stdout) as {
      scope: string;
      requestedScope: string;
      defaultInbox: string;
      inboxes: Array<{ address: string }>;
      next: string[];
    };
    expect(outcome).toMatchObject({
      scope: 'mail.read',
      requestedScope: 'mail.read mail.send',
      defaultInbox: 'pat-second@agent-mailbox.test',
    });
    expect(outcome.inboxes.map((inbox) => inbox.address)).toEqual([
      'pat-first@agent-mailbox.test',
      'pat-second@agent-mailbox.test',
    ]);
    expect(outcome.next[0]).toBe('The person unticked mail.send on the consent page: this connection can only read.');

    const listed = await runCli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toBe('Inbox: pat-second@agent-mailbox.test');
    expect(listed.stdout).toContain('Waiting in the second inbox');

    const refused = await runCli(
      [
        'jmap_request',
        '--ops-file',
        'send_mail',
        '--vars',
        JSON.stringify({ TO: 'friend@example.test', SUBJECT: 'Must not leave', BODY: 'no' }),
        '--credentials-dir',
        dir,
        '--json',
      ],
      { env },
    );
    expect(refused.code).toBe(1);
    expect((refused.json as { error: { code: string; message: string; hint: string } }).error).toMatchObject({
      code: 'insufficient_scope',
      message: expect.stringContaining('lacks the mail.send scope'),
      hint: expect.stringContaining('agent-mailbox connect --scope read,send'),
    });
    expect(await sandbox.outbox()).toEqual([]);
  });
});
