import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MailboxError } from '../../src/errors.js';
import {
  ada,
  autoApproveBrowser,
  connectDirectory,
  refreshDirectly,
  startOAuthSandbox,
  storedGrant,
} from '../helpers/oauth-directory.js';
import { decodeJwt } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import { markInboxWaking } from '../../src/policy/records/wake-read-only.js';
import { rememberInboxDir } from '../../src/policy/records/inbox-dirs.js';
import { sandboxClientEnv } from '../../sandbox/src/sandbox-command.js';

const sandbox = await startOAuthSandbox();
const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('connect (RFC 8252 native app, PKCE, RFC 9207, RFC 8707)', () => {
  it("stores the grant in a 0700 directory of 0600 files, with the person's inboxes and the consent's default", async () => {
    const dir = await tempCredentialsDir();
    const outcome = await connectDirectory(sandbox, dir, { scope: 'mail.read' });
    expect(outcome).toMatchObject({
      scope: 'mail.read',
      resource: `${sandbox.apiUrl}/jmap`,
      defaultInbox: 'ada-inbox@agent-mailbox.test',
      reconnected: false,
    });
    expect(outcome.inboxes.map((inbox) => inbox.address)).toEqual(['ada-inbox@agent-mailbox.test', 'ops@acme.test']);
    expect(await mode(dir)).toBe(0o700);
    for (const file of await readdir(dir)) expect(await mode(join(dir, file)), file).toBe(0o600);
    const grant = await storedGrant(dir);
    expect(grant).toMatchObject({
      kind: 'oauth',
      scope: 'mail.read',
      generation: 1,
      resource: `${sandbox.apiUrl}/jmap`,
      apiUrl: sandbox.apiUrl,
      server: { issuer: sandbox.authUrl },
    });
    expect(String(grant['refreshToken'])).toMatch(/^amr_/);
    // The refresh token works: it is the current one of a live grant.
    expect((await refreshDirectly(sandbox, dir)).status).toBe(200);
  });

  it('asks with PKCE S256, a fresh state, the exact resource and the loopback redirect URI it registered', async () => {
    const dir = await tempCredentialsDir();
    const seen: string[] = [];
    await connectDirectory(sandbox, dir, { openBrowser: autoApproveBrowser(undefined, seen) });
    const url = new URL(seen[0] ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`${sandbox.authUrl}/oauth/authorize`);
    const params = Object.fromEntries(url.searchParams);
    expect(params).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: 'mail.read mail.send',
      resource: `${sandbox.apiUrl}/jmap`,
    });
    expect(params['code_challenge']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params['state']?.length).toBeGreaterThanOrEqual(32);
    // RFC 8252 §7.3: the loopback IP literal with an ephemeral port, registered exactly for this run.
    expect(params['redirect_uri']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const other = await tempCredentialsDir();
    const second: string[] = [];
    await connectDirectory(sandbox, other, { openBrowser: autoApproveBrowser(undefined, second) });
    const next = Object.fromEntries(new URL(second[0] ?? '').searchParams);
    expect(next['state']).not.toBe(params['state']);
    expect(next['client_id']).not.toBe(params['client_id']);
  });

  it('refuses an answer whose iss is not the issuer (RFC 9207) and stores nothing', async () => {
    const dir = await tempCredentialsDir();
    const forged = autoApproveBrowser((callback) => {
      callback.searchParams.set('iss', 'https://evil.example');
      return callback;
    });
    const error = (await connectDirectory(sandbox, dir, { openBrowser: forged }).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(error).toBeInstanceOf(MailboxError);
    expect(error.code).toBe('bad_response');
    expect(error.message).toMatch(/iss/);
    await expect(stat(join(dir, 'oauth.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses an answer without iss when the server promises it (RFC 9207 §2.4)', async () => {
    const dir = await tempCredentialsDir();
    const stripped = autoApproveBrowser((callback) => {
      callback.searchParams.delete('iss');
      return callback;
    });
    const error = (await connectDirectory(sandbox, dir, { openBrowser: stripped }).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(error.message).toMatch(/"iss" \(issuer\) missing/);
    await expect(stat(join(dir, 'oauth.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('turns away an answer with another state and keeps waiting for the right one', async () => {
    const dir = await tempCredentialsDir();
    const statuses: number[] = [];
    const browser = async (url: string): Promise<void> => {
      const answer = await fetch(url, { redirect: 'manual' });
      const callback = new URL(answer.headers.get('location') ?? '');
      const forged = new URL(callback);
      forged.searchParams.set('state', 'not-the-state');
      statuses.push((await fetch(forged)).status);
      void fetch(callback).then((page) => page.text());
    };
    const outcome = await connectDirectory(sandbox, dir, { openBrowser: browser });
    expect(statuses).toEqual([400]);
    expect(outcome.inboxes.length).toBe(2);
  });

  it('reports a declined consent as oauth_failed and stores nothing', async () => {
    const dir = await tempCredentialsDir();
    const declined = autoApproveBrowser((callback) => {
      const answer = new URL(`${callback.origin}${callback.pathname}`);
      answer.searchParams.set('error', 'access_denied');
      answer.searchParams.set('state', callback.searchParams.get('state') ?? '');
      answer.searchParams.set('iss', callback.searchParams.get('iss') ?? '');
      return answer;
    });
    const error = (await connectDirectory(sandbox, dir, { openBrowser: declined }).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(error).toMatchObject({
      code: 'oauth_failed',
      hint: 'The person declined (or unticked every scope). Run connect again when they want to connect.',
    });
    await expect(stat(join(dir, 'oauth.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never goes over a proof-of-work inbox, and register never goes over a connected account', async () => {
    const powDir = await tempCredentialsDir();
    await mkdir(powDir, { recursive: true, mode: 0o700 });
    const credentials = JSON.stringify({
      apiKey: 'amk_only_copy_of_this_key_0123',
      inboxId: 'mine',
      inbox: 'mine@agent-mailbox.test',
    });
    await writeFile(join(powDir, 'credentials.json'), credentials, { mode: 0o600 });
    const refused = (await connectDirectory(sandbox, powDir).catch((e: unknown) => e)) as MailboxError;
    expect(refused.code).toBe('credentials_exist');
    expect(refused.message).toMatch(/holds a proof-of-work inbox/);
    expect(await readFile(join(powDir, 'credentials.json'), 'utf8')).toBe(credentials);
    expect(await readdir(powDir)).toEqual(['credentials.json']);

    const connected = await tempCredentialsDir();
    await connectDirectory(sandbox, connected);
    const run = await runCliInProcess(
      ['register', '--username', 'someone-new', '--watch', 'on-demand', '--credentials-dir', connected, '--json'],
      { env: sandboxClientEnv(sandbox) },
    );
    expect(run.code).toBe(1);
    expect((run.json as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'credentials_exist',
      message: expect.stringMatching(/holds a connected account/),
    });
    expect(await readdir(connected)).not.toContain('credentials.json');
  });

  it('refuses to connect under newInboxes=off in any layer found, and while a wake runs, before any browser opens', async () => {
    const home = await mkdtemp(join(tmpdir(), 'connect-rules-'));
    onTestFinished(() => rm(home, { recursive: true, force: true }));
    const userConfigDir = join(home, '.config', 'agent-mailbox');
    const env = {
      ...sandboxClientEnv(sandbox),
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      BROWSER: '/nonexistent/browser',
    };
    const connect = async (dir: string) =>
      runCliInProcess(['connect', '--no-browser', '--wait-seconds', '10', '--credentials-dir', dir, '--json'], { env });
    const errorOf = (run: { json?: unknown }) => (run.json as { error: { code: string; message: string } }).error;

    // The rule sits in the layer of an inbox registered before, not in the new directory's.
    const earlier = join(home, 'earlier-inbox');
    await mkdir(earlier, { recursive: true, mode: 0o700 });
    await writeFile(join(earlier, 'policy.json'), JSON.stringify({ version: 1, newInboxes: 'off' }), { mode: 0o600 });
    await rememberInboxDir(userConfigDir, earlier);
    for (const dir of [join(home, 'fresh'), earlier]) {
      const run = await connect(dir);
      expect(run.code, run.stderr).not.toBe(0);
      expect(errorOf(run)).toMatchObject({
        code: 'policy_refused',
        message: expect.stringMatching(/^Not connected: .*newInboxes=off/),
      });
      // Refused before the sign-in link was made: no link on stderr, no grant written.
      expect(run.stderr).not.toMatch(/oauth\/authorize/);
    }
    expect(await readdir(home)).not.toContain('fresh');

    await writeFile(join(earlier, 'policy.json'), JSON.stringify({ version: 1 }), { mode: 0o600 });
    const release = await markInboxWaking(userConfigDir, 'someone@agent-mailbox.test');
    try {
      const run = await connect(join(home, 'during-wake'));
      expect(errorOf(run)).toMatchObject({
        code: 'policy_refused',
        message: expect.stringMatching(/^Not connected: a wake is running/),
      });
      expect(await readdir(home)).not.toContain('during-wake');
    } finally {
      await release();
    }
  });

  it('connects again over a connection: the new grant replaces the old one, which is revoked', async () => {
    const dir = await tempCredentialsDir();
    await connectDirectory(sandbox, dir, { scope: 'mail.read' });
    const before = await storedGrant(dir);
    const outcome = await connectDirectory(sandbox, dir, { scope: 'mail.read mail.send' });
    expect(outcome).toMatchObject({ reconnected: true, scope: 'mail.read mail.send' });
    const after = await storedGrant(dir);
    expect(after['refreshToken']).not.toBe(before['refreshToken']);
    const old = await fetch(`${sandbox.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(before['refreshToken']),
        client_id: String(before['clientId']),
      }).toString(),
    });
    expect(old.status).toBe(400);
    expect(((await old.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await refreshDirectly(sandbox, dir)).status).toBe(200);
  });

  it('binds the tokens to the resource it asked for: {api_url}/jmap by default, or one inbox', async () => {
    const dir = await tempCredentialsDir();
    await connectDirectory(sandbox, dir);
    const cache = JSON.parse(await readFile(join(dir, 'access-tokens.json'), 'utf8')) as {
      tokens: Array<{ token: string }>;
    };
    expect(decodeJwt(cache.tokens[0]?.token ?? '')['aud']).toBe(`${sandbox.apiUrl}/jmap`);
    const wrong = await tempCredentialsDir();
    const error = (await connectDirectory(sandbox, wrong, { resource: `${sandbox.apiUrl}/jmap/` }).catch(
      (e: unknown) => e,
    )) as MailboxError;
    expect(error.code).toBe('oauth_failed');
    expect(error.message).toMatch(/invalid_request/);
  });

  it("gives the person's first inbox as the default of an auto-approved grant for another person", async () => {
    const people = await startOAuthSandbox([ada, { person: 'bob', inboxes: ['bob-inbox'] }]);
    const dir = await tempCredentialsDir();
    const outcome = await connectDirectory(people, dir, { loginHint: 'bob' });
    expect(outcome.inboxes.map((inbox) => inbox.address)).toEqual(['bob-inbox@agent-mailbox.test']);
    expect(outcome.defaultInbox).toBe('bob-inbox@agent-mailbox.test');
  });
});
