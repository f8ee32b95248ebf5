import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccountRegistry } from '../../src/auth/create-account-registry.js';
import { MailboxError } from '../../src/errors.js';
import { openServiceGate } from '../../src/gate/service-gate.js';
import { EventStreamFailure } from '../../src/http/event-stream.js';
import { silentLogger } from '../../src/log.js';
import { authPaths } from '../../src/wire-constants.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import type { ScriptedServer } from '../helpers/scripted-http-server.js';
import { baseEnv, copyDir, expectBothDoorsKeepPromises, freshDir, secretsIn } from './fault-case.js';
import { httpFault } from './fault-servers.js';
import { elsewhere, everythingSent, front, redirectWhen, rewriteSession, type FrontRule } from './origin-servers.js';

/**
 * A service host that points the client at a second loopback origin, by a redirect or by the URLs
 * of its JMAP session: every leg that carries a credential (login, capability minting, session
 * discovery, API calls, uploads, downloads, the push stream) refuses, says which origin it refused,
 * and the second origin receives nothing at all. The OAuth legs are in oauth-origin-faults.test.ts.
 */

const sandbox = await startTestSandbox();
/** The healthy legs of these cases go to the real sandbox: a machine under load must not time them out. */
const roomy = (): Record<string, string> => ({ ...baseEnv(sandbox), AGENT_MAILBOX_TIMEOUT_MS: '15000' });
const inbox = await freshDir();
const setup = await runCliInProcess(
  ['register', '--username', 'origin-faults', '--watch', 'on-demand', '--credentials-dir', inbox],
  { env: roomy() },
);
if (setup.code !== 0) throw new Error(`setup register failed: ${setup.stderr}`);
const apiKey = (JSON.parse(await readFile(join(inbox, 'credentials.json'), 'utf8')) as { apiKey: string }).apiKey;

function errorOf(stdout: string): { code: string; message: string; hint: string } {
  return (JSON.parse(stdout) as { error: { code: string; message: string; hint: string } }).error;
}

async function expectNothingReached(other: ScriptedServer, dirs: string[]): Promise<void> {
  expect(other.hits(), everythingSent(other)).toBe(0);
  for (const dir of dirs)
    for (const secret of await secretsIn(dir)) expect(everythingSent(other)).not.toContain(secret);
}

/** The session as the front shows it, with `field` moved to the other origin. */
function sessionNaming(field: string, other: string): FrontRule {
  return rewriteSession((session) => ({ ...session, [field]: `${other}/moved/{accountId}/` }));
}

describe('credentials never follow a redirect to another origin', () => {
  for (const status of [307, 308, 302]) {
    it(`login: the apiKey in the session POST is not resent to another origin (${status})`, async () => {
      const other = await elsewhere();
      const auth = await front(
        sandbox.authUrl,
        redirectWhen('POST', new RegExp(`^${authPaths.session}`), other.url, status),
      );
      const dir = await freshDir();
      const run = await runCliInProcess(
        ['register', '--api-key', apiKey, '--watch', 'on-demand', '--credentials-dir', dir],
        { env: { ...roomy(), AGENT_MAILBOX_AUTH_URL: auth.url } },
      );
      expect(run.code, run.stderr).not.toBe(0);
      const error = errorOf(run.stdout);
      expect(error.message).toContain(`redirect to ${other.url}`);
      expect(error.hint).toMatch(/--auth-url/);
      expect(auth.redirected).toBe(1);
      expect(other.hits(), everythingSent(other)).toBe(0);
      expect(`${run.stdout}${run.stderr}`).not.toContain(apiKey);
    });
  }

  it('sign-up: the session POST is not resent to another origin either', async () => {
    const other = await elsewhere();
    const auth = await front(sandbox.authUrl, redirectWhen('POST', new RegExp(`^${authPaths.session}`), other.url));
    const run = await runCliInProcess(
      ['register', '--username', 'origin-signup', '--watch', 'on-demand', '--credentials-dir', await freshDir()],
      { env: { ...roomy(), AGENT_MAILBOX_AUTH_URL: auth.url } },
    );
    expect(run.code).not.toBe(0);
    expect(errorOf(run.stdout).message).toContain(other.url);
    expect(other.hits()).toBe(0);
  });

  it('capability minting: the session JWT is not resent to another origin', async () => {
    const other = await elsewhere();
    const auth = await front(sandbox.authUrl, redirectWhen('POST', new RegExp(`^${authPaths.capability}`), other.url));
    const dir = await copyDir(inbox, ['capability.jwt']);
    const run = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
      env: { ...roomy(), AGENT_MAILBOX_AUTH_URL: auth.url },
    });
    expect(run.code).not.toBe(0);
    expect(errorOf(run.stdout).message).toContain(`redirect to ${other.url}`);
    expect(auth.redirected).toBeGreaterThan(0);
    await expectNothingReached(other, [dir]);
  });

  it('session discovery: the capability is not resent to another origin', async () => {
    const other = await elsewhere();
    const api = await front(sandbox.apiUrl, redirectWhen('GET', /^\/\.well-known\/jmap/, other.url, 301));
    const dir = await copyDir(inbox, ['state.json']);
    const run = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
      env: { ...roomy(), AGENT_MAILBOX_API_URL: api.url },
    });
    expect(run.code).not.toBe(0);
    expect(errorOf(run.stdout).message).toMatch(
      /JMAP session discovery: .* redirect to http:\/\/127\.0\.0\.1:\d+, another origin/,
    );
    await expectNothingReached(other, [dir]);
  });

  it('API calls: a method call is not resent to another origin', async () => {
    const other = await elsewhere();
    const api = await front(sandbox.apiUrl, redirectWhen('POST', /^\/jmap/, other.url));
    const dir = await copyDir(inbox, ['state.json']);
    const run = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
      env: { ...roomy(), AGENT_MAILBOX_API_URL: api.url },
    });
    expect(run.code).not.toBe(0);
    expect(errorOf(run.stdout).message).toContain(`redirect to ${other.url}`);
    await expectNothingReached(other, [dir]);
  });

  it('uploads, downloads and the push stream: nothing is resent to another origin', async () => {
    const other = await elsewhere();
    const api = await front(sandbox.apiUrl, (req) =>
      /^\/(upload|download|eventsource)\//.test(req.url ?? '')
        ? { redirect: `${other.url}${req.url ?? ''}`, status: 307 }
        : undefined,
    );
    const dir = await copyDir(inbox, ['state.json']);
    const registry = createAccountRegistry({
      configInputs: { flags: { credentialsDir: dir }, env: { ...roomy(), AGENT_MAILBOX_API_URL: api.url } },
      log: silentLogger,
    });
    const gate = openServiceGate(registry.open(dir), {
      signal: new AbortController().signal,
      log: silentLogger,
      timeoutMs: 10_000,
      check: async () => undefined,
    });
    const session = await gate.session();
    expect(session.uploadUrl.startsWith(api.url)).toBe(true);

    const upload = await gate
      .upload({ bytes: Buffer.from('hello'), type: 'text/plain', source: { kind: 'file', path: join(dir, 'x') } })
      .catch((e: unknown) => e);
    expect(upload).toBeInstanceOf(MailboxError);
    expect((upload as MailboxError).message).toMatch(/redirect to http:\/\/127\.0\.0\.1:\d+, another origin/);

    const handle = await open(join(dir, 'download.bin'), 'w');
    const download = await gate.download('Gblob', handle).catch((e: unknown) => e);
    await handle.close();
    expect((download as MailboxError).message).toContain(`redirect to ${other.url}`);

    const events = await gate
      .openEvents(`${api.url}/eventsource/?types=*&closeafter=no&ping=30`, {
        idleTimeoutMs: 5000,
        maxEventBytes: 65536,
        maxTotalBytes: 1 << 20,
      })
      .catch((e: unknown) => e);
    expect(events).toBeInstanceOf(EventStreamFailure);
    expect((events as EventStreamFailure).kind).toBe('redirect_refused');
    expect(api.redirected).toBe(3);
    await expectNothingReached(other, [dir]);
    registry.close();
  });
});

describe('a JMAP session that names another origin is not used', () => {
  for (const field of ['apiUrl', 'uploadUrl', 'downloadUrl', 'eventSourceUrl']) {
    it(`refuses a session whose ${field} is elsewhere, naming it`, async () => {
      const other = await elsewhere();
      const api = await front(sandbox.apiUrl, sessionNaming(field, other.url));
      const dir = await copyDir(inbox, ['state.json']);
      const run = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
        env: { ...roomy(), AGENT_MAILBOX_API_URL: api.url },
      });
      expect(run.code).not.toBe(0);
      const error = errorOf(run.stdout);
      expect(error.message).toContain(`names another origin for ${field} (${other.url})`);
      expect(error.hint).toContain('--allowed-origins');
      await expectNothingReached(other, [dir]);
    });
  }

  it('refuses a template whose host is a placeholder', async () => {
    const api = await front(
      sandbox.apiUrl,
      rewriteSession((session) => ({
        ...session,
        downloadUrl: 'http://{accountId}/download/{blobId}/{name}?type={type}',
      })),
    );
    const run = await runCliInProcess(
      ['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', await copyDir(inbox, ['state.json'])],
      { env: { ...roomy(), AGENT_MAILBOX_API_URL: api.url } },
    );
    expect(errorOf(run.stdout).message).toContain('downloadUrl (a host a template placeholder would choose)');
  });

  it('does not reuse a cached session that names another origin', async () => {
    const other = await elsewhere();
    const dir = await copyDir(inbox);
    const warm = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
      env: roomy(),
    });
    expect(warm.code, warm.stdout).toBe(0);
    const statePath = join(dir, 'state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8')) as { session: Record<string, unknown> };
    state.session['apiUrl'] = `${other.url}/jmap`;
    await writeFile(statePath, JSON.stringify(state), { mode: 0o600 });
    const run = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
      env: roomy(),
    });
    expect(run.code, run.stdout).toBe(0);
    await expectNothingReached(other, [dir]);
  });

  it('uses an origin the operator allowed (and only then does that origin see a request)', async () => {
    const other = await elsewhere();
    const api = await front(sandbox.apiUrl, sessionNaming('apiUrl', other.url));
    const dir = await copyDir(inbox, ['state.json']);
    const run = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
      env: {
        ...roomy(),
        AGENT_MAILBOX_API_URL: api.url,
        AGENT_MAILBOX_ALLOWED_ORIGINS: `https://unrelated.example, ${other.url}`,
      },
    });
    expect(run.code).not.toBe(0);
    expect(errorOf(run.stdout).message).not.toContain('another origin');
    expect(other.hits()).toBeGreaterThan(0);
  });
});

// Both doors as spawned processes, with the fault suite's promises (time, memory, no secret shown).
describe('through the CLI and the MCP server', () => {
  it('a sign-up whose session POST is redirected to another origin', async () => {
    const other = await httpFault((_req, res) => res.end('{}'));
    const auth = await front(sandbox.authUrl, redirectWhen('POST', new RegExp(`^${authPaths.session}`), other.url));
    await expectBothDoorsKeepPromises({
      name: 'origin-signup-redirect',
      op: { kind: 'register', username: 'origin-both' },
      env: { ...roomy(), AGENT_MAILBOX_AUTH_URL: auth.url },
      dir: freshDir,
      fault: other,
      code: /^bad_response$/,
      says: new RegExp(`redirect to ${other.url.replace(/\./g, '\\.')}, another origin`),
    });
    expect(other.hits()).toBe(0);
  });

  it('a session whose apiUrl names another origin', async () => {
    const other = await httpFault((_req, res) => res.end('{}'));
    const api = await front(sandbox.apiUrl, sessionNaming('apiUrl', other.url));
    await expectBothDoorsKeepPromises({
      name: 'origin-session-apiurl',
      op: { kind: 'jmap' },
      env: { ...roomy(), AGENT_MAILBOX_API_URL: api.url },
      dir: () => copyDir(inbox, ['state.json']),
      fault: other,
      code: /^bad_response$/,
      says: /names another origin for apiUrl/,
    });
    expect(other.hits()).toBe(0);
  });
});
