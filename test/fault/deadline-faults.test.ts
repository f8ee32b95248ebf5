import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, resultText, structured } from '../helpers/connect-mcp.js';
import { loadHandlers } from '../../src/operations/handlers/load.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import { freshDir } from './fault-case.js';
import { hang, stallMidBody, type FaultServer } from './fault-servers.js';

/**
 * One deadline per call: a JMAP host that accepts and never answers ends jmap_request when the
 * configured timeout (--timeout-ms / AGENT_MAILBOX_TIMEOUT_MS, default 30 s) has passed for the whole
 * call, not per attempt. Before, the default held list_inbox 60.4 s (two 30 s attempts at the
 * session) and --timeout-ms 2000 held it 4.3 s. The subject is the command, not the process, so the
 * CLI's entry runs in the test process (a node start under a loaded suite costs seconds of its own:
 * test/fault/FIGURES.md has the spawned figures). Each case gets its own hung host and runs beside
 * the others, so the file costs about the longest case (the 30 s default), not their sum. A host
 * that answers the head and part of the body and then stalls is held to the same deadline.
 */

const inboxId = 'deadline';

/** An unsigned token with the claims the client reads: the host under test never gets to check it. */
function token(): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ exp: now + 3600, iat: now, inboxId })}.c2ln`;
}

/**
 * A registered inbox whose tokens are fresh, so the only host the call needs is the JMAP host; with
 * `cachedSession`, state.json already holds that host's session, so the first request is the JMAP POST.
 */
async function inboxAt(fault: FaultServer, cachedSession: boolean): Promise<string> {
  const dir = await freshDir();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const write = async (name: string, text: string): Promise<void> => {
    await writeFile(join(dir, name), text, { mode: 0o600 });
    await chmod(join(dir, name), 0o600);
  };
  await write(
    'credentials.json',
    JSON.stringify({
      apiKey: `amk_${'d'.repeat(32)}`,
      inboxId,
      inbox: `${inboxId}@example.test`,
      authUrl: fault.url,
      apiUrl: fault.url,
      inboxDomain: 'example.test',
      watch: 'on-demand',
    }),
  );
  await write('session.jwt', `${token()}\n`);
  await write('capability.jwt', `${token()}\n`);
  if (cachedSession) {
    const session = {
      sessionUrl: `${fault.url}/.well-known/jmap`,
      apiUrl: `${fault.url}/jmap/`,
      uploadUrl: `${fault.url}/upload/{accountId}/`,
      downloadUrl: `${fault.url}/download/{accountId}/{blobId}/{name}?accept={type}`,
      accountId: `${inboxId}@example.test`,
      capabilities: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission'],
      accountCapabilities: [],
      limits: {},
      inboxMailboxId: 'inbox-id',
      mailboxIdsByRole: { inbox: 'inbox-id' },
      fetchedAt: new Date().toISOString(),
    };
    await write('state.json', JSON.stringify({ session }));
  }
  return dir;
}

const baseEnv = (fault: FaultServer): Record<string, string> => ({
  AGENT_MAILBOX_AUTH_URL: fault.url,
  AGENT_MAILBOX_API_URL: fault.url,
  AGENT_MAILBOX_INBOX_DOMAIN: 'example.test',
  AGENT_MAILBOX_CRONTAB: '/nonexistent/crontab',
});

interface Case {
  timeoutMs: number | undefined;
  /** What the call was doing when the host stopped answering. */
  what: string;
  atMostMs: number;
}

/** A hung host and an inbox pointed at it. Made at the file's top level: tests that run side by side must not close each other's. */
async function hungInbox(
  cachedSession: boolean,
  host: () => Promise<FaultServer> = hang,
): Promise<{ fault: FaultServer; dir: string }> {
  const fault = await host();
  return { fault, dir: await inboxAt(fault, cachedSession) };
}

const defaultFresh = await hungInbox(false);
const defaultCached = await hungInbox(true);
const shortFresh = await hungInbox(false);
const shortCached = await hungInbox(true);
const mcpCached = await hungInbox(true);
const stalledCached = await hungInbox(true, stallMidBody);

async function expectEndsInTime(c: Case, { fault, dir }: { fault: FaultServer; dir: string }): Promise<void> {
  const env = {
    ...baseEnv(fault),
    ...(c.timeoutMs !== undefined ? { AGENT_MAILBOX_TIMEOUT_MS: String(c.timeoutMs) } : {}),
  };
  const started = Date.now();
  const run = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], { env });
  const ms = Date.now() - started;
  const limit = c.timeoutMs ?? 30_000;
  expect(ms, `${c.what}: ${run.stderr}`).toBeLessThanOrEqual(c.atMostMs);
  expect(ms, 'the deadline is the configured one, not a shorter one').toBeGreaterThanOrEqual(limit);
  expect(run.code).toBe(1);
  const error = (JSON.parse(run.stdout) as { error: { code: string; message: string; hint: string } }).error;
  expect(error.code).toBe('timeout');
  expect(error.message).toMatch(
    new RegExp(
      `^${c.what}: no complete answer from ${fault.url.replace(/\./g, '\\.')} within ${limit} ms, the time limit of the whole call \\(--timeout-ms / AGENT_MAILBOX_TIMEOUT_MS\\); the call waited \\d+ ms for the service in all\\.$`,
    ),
  );
  expect(error.hint).toMatch(/--timeout-ms/);
  // Nothing was sent twice: a GET that used the whole deadline has no time for another attempt, a POST is never resent.
  expect(fault.hits()).toBe(1);
}

// The command's work, imported by its first call, is loaded here once: in the test process that
// import goes through the test runner's transform, which a loaded suite can stretch past a second
// inside the timed window (the built bundle loads it in tens of milliseconds).
beforeAll(async () => {
  await loadHandlers();
});

describe.concurrent("a JMAP host that never answers ends jmap_request at the call's deadline", () => {
  it('default settings, no cached session: ends within 35 s', async () => {
    await expectEndsInTime({ timeoutMs: undefined, what: 'JMAP session discovery', atMostMs: 35_000 }, defaultFresh);
  });
  it('default settings, cached session: ends within 35 s', async () => {
    await expectEndsInTime({ timeoutMs: undefined, what: 'JMAP request', atMostMs: 35_000 }, defaultCached);
  });
  it('--timeout-ms 2000, no cached session: ends within 3 s', async () => {
    await expectEndsInTime({ timeoutMs: 2000, what: 'JMAP session discovery', atMostMs: 3_000 }, shortFresh);
  });
  it('--timeout-ms 2000, cached session: ends within 3 s', async () => {
    await expectEndsInTime({ timeoutMs: 2000, what: 'JMAP request', atMostMs: 3_000 }, shortCached);
  });
  it('--timeout-ms 2000, cached session, the host stalls after the head and part of the body: ends within 3 s', async () => {
    await expectEndsInTime({ timeoutMs: 2000, what: 'JMAP request', atMostMs: 3_000 }, stalledCached);
  });
  it("an MCP call ends at the host's per-call budget when that comes before the timeout, saying so", async () => {
    const { fault, dir } = mcpCached;
    const server = await connectMcp({
      env: { ...baseEnv(fault), AGENT_MAILBOX_TIMEOUT_MS: '30000' },
      args: ['--tool-deadline-ms', '1500'],
    });
    try {
      const started = Date.now();
      const result = await server.client.callTool({
        name: 'jmap_request',
        arguments: { ops_file: 'list_inbox', credentials_dir: dir },
      });
      const ms = Date.now() - started;
      expect(ms).toBeGreaterThanOrEqual(1500);
      expect(ms).toBeLessThanOrEqual(2500);
      expect(result.isError).toBe(true);
      expect(structured(result)).toMatchObject({ error: { code: 'timeout' } });
      expect(resultText(result)).toMatch(
        /^JMAP request: no complete answer from http:\/\/127\.0\.0\.1:\d+ within 1500 ms, the time one tool call may take here/,
      );
    } finally {
      await server.close();
    }
  });
});
