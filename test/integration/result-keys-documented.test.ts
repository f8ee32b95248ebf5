import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccountRegistry } from '../../src/auth/create-account-registry.js';
import { silentLogger } from '../../src/log.js';
import { runJmapRequest } from '../../src/request/run-jmap-request.js';
import { jmapResultKeys } from '../unit/docs/jmap-result-keys.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

// The keys the help topic and the reference list for jmap_request's result (generated from
// test/unit/docs/jmap-result-keys.ts) are the keys the code returns, present when the docs say.
const sandbox = await startTestSandbox();
const work = await mkdtemp(join(tmpdir(), 'result-keys-'));
const configInputs = {
  flags: { authUrl: sandbox.authUrl, apiUrl: sandbox.apiUrl, scryptSalt: sandbox.salt, inboxDomain: sandbox.domain },
  env: {},
};
const registry = createAccountRegistry({ configInputs, log: silentLogger, powWorkers: 1 });
const dir = join(work, 'credentials');
const account = registry.open(dir);
await account.register({ username: 'keys-agent', watch: 'on-demand' });
afterAll(async () => {
  registry.close();
  await rm(work, { recursive: true, force: true });
});

const ctx = () => ({ signal: AbortSignal.timeout(30_000), log: silentLogger, timeoutMs: 10_000 });

describe("jmap_request's result keys", () => {
  it('are all documented, and the request is there only with dry_run or echo_request', async () => {
    const plain = await runJmapRequest(account, { ops_file: 'list_inbox' }, ctx());
    const echoed = await runJmapRequest(account, { ops_file: 'list_inbox', echo_request: true }, ctx());
    const dry = await runJmapRequest(account, { ops_file: 'list_inbox', dry_run: true }, ctx());
    for (const result of [plain, echoed, dry]) {
      for (const key of Object.keys(result))
        expect(Object.keys(jmapResultKeys), `undocumented key ${key}`).toContain(key);
    }
    expect(plain).not.toHaveProperty('request');
    expect(echoed.request?.methodCalls.length).toBeGreaterThan(0);
    expect(dry.request?.methodCalls.length).toBeGreaterThan(0);
    expect(dry.dryRun).toBe(true);
  });

  it('reach a shell only with --json: by default the CLI prints text to read', async () => {
    const env = {
      AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
      AGENT_MAILBOX_API_URL: sandbox.apiUrl,
      AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
      AGENT_MAILBOX_CREDENTIALS_DIR: dir,
    };
    const text = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox'], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.json).toBeUndefined();
    expect(text.stdout).toMatch(/^OK: /);
    const json = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--json'], { env });
    expect(Object.keys(json.json as object)).toEqual(
      expect.arrayContaining(['ok', 'summary', 'dryRun', 'response', 'failures']),
    );
  });
});
