import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Account } from '../../src/auth/account-registry.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { silentLogger } from '../../src/log.js';
import {
  runJmapRequest,
  type JmapRequestContext,
  type JmapRequestInput,
  type JmapRequestResult,
} from '../../src/request/run-jmap-request.js';
import { sandboxClientEnv } from '../../sandbox/src/sandbox-command.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import { forgetAllSecrets } from '../../src/redact.js';

/**
 * A sandbox with a sending inbox (alice) and a receiving one (bob), an operator's user config
 * directory of the test's own, and ways to write the operator's policy files and to see every
 * trace a send could leave on the server: alice's mail (a draft, a Sent copy), bob's inbox, and
 * the sandbox's log of mail to the outside world.
 */
export interface GuardWorld {
  sandbox: RunningSandbox;
  base: string;
  env: Record<string, string>;
  /** The operator's user config directory (user-policy.json, wake marks). */
  userConfigDir: string;
  registry: ObservableAccountRegistry;
  alice: Account;
  bob: Account;
  address: { alice: string; bob: string };
  writeUserPolicy(policy: Record<string, unknown>): Promise<void>;
  writeInboxPolicy(dir: string, policy: Record<string, unknown>): Promise<void>;
  clearPolicies(): Promise<void>;
  run(account: Account, input: JmapRequestInput, extra?: Partial<JmapRequestContext>): Promise<JmapRequestResult>;
  /** Every trace of mails with this subject: alice's own (drafts, Sent), bob's, and mail that left for the outside. */
  traces(
    subject: string,
  ): Promise<{ alice: Record<string, unknown>[]; bob: Record<string, unknown>[]; outside: unknown[] }>;
  /** Raw JMAP for an account, past nothing but the gate's check (a model's ops). */
  ops(account: Account, methodCalls: unknown[], extra?: Partial<JmapRequestContext>): Promise<JmapRequestResult>;
}

export async function startGuardWorld(kind: 'embedded' | 'cyrus', label: string): Promise<GuardWorld> {
  const sandbox = await startSandbox({ backend: kind, difficulty: 2, rateLimit: false });
  const base = await mkdtemp(join(tmpdir(), `guard-${label}-`));
  const userConfigDir = join(base, 'config', 'agent-mailbox');
  const env = {
    ...sandboxClientEnv(sandbox, join(base, 'default')),
    HOME: join(base, 'home'),
    XDG_CONFIG_HOME: join(base, 'config'),
  };
  const registry = createAccountRegistry({ configInputs: { flags: {}, env }, log: silentLogger, powWorkers: 1 });
  cleanUpAfter(async () => {
    registry.close();
    await sandbox.close();
    await rm(base, { recursive: true, force: true });
  });
  // Secrets an earlier file of this worker made known (a unit test's fake token of repeated
  // letters, say) would match this world's mail by value; a new process knows none of them.
  forgetAllSecrets();
  const alice = registry.open(join(base, 'alice'));
  const bob = registry.open(join(base, 'bob'));
  const suffix = `${label}-${process.pid % 1000}`.slice(0, 12);
  const address = {
    alice: (await alice.register({ username: `ga-${suffix}`, watch: 'on-demand' })).inbox,
    bob: (await bob.register({ username: `gb-${suffix}`, watch: 'on-demand' })).inbox,
  };
  const writePolicy = async (path: string, policy: Record<string, unknown>): Promise<void> => {
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    await writeFile(path, JSON.stringify({ version: 1, ...policy }), { mode: 0o600 });
  };
  const run: GuardWorld['run'] = (account, input, extra = {}) =>
    runJmapRequest(account, input, {
      signal: AbortSignal.timeout(60_000),
      log: silentLogger,
      timeoutMs: 20_000,
      ...extra,
    });
  // Every message of the account, filtered here: a search filter would lean on the server's index,
  // which Cyrus fills a moment after storing mail, and an unindexed draft would look like no trace.
  const subjectsOf = async (account: Account, subject: string): Promise<Record<string, unknown>[]> => {
    const result = await run(account, {
      ops: [
        [
          'Email/query',
          { accountId: '$ACCOUNT_ID', sort: [{ property: 'receivedAt', isAscending: false }], limit: 500 },
          'q',
        ],
        [
          'Email/get',
          {
            accountId: '$ACCOUNT_ID',
            '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
            properties: ['subject', 'mailboxIds', 'keywords'],
          },
          'g',
        ],
      ],
    });
    const list = (result.response?.methodResponses.find(([name]) => name === 'Email/get')?.[1].list ?? []) as Record<
      string,
      unknown
    >[];
    return list.filter((email) => email.subject === subject);
  };
  return {
    sandbox,
    base,
    env,
    userConfigDir,
    registry,
    alice,
    bob,
    address,
    writeUserPolicy: (policy) => writePolicy(join(userConfigDir, 'user-policy.json'), policy),
    writeInboxPolicy: (dir, policy) => writePolicy(join(dir, 'policy.json'), policy),
    clearPolicies: async () => {
      await rm(join(userConfigDir, 'user-policy.json'), { force: true });
      for (const account of [alice, bob]) await rm(join(account.dir, 'policy.json'), { force: true });
    },
    run,
    ops: (account, methodCalls, extra) => run(account, { ops: methodCalls }, extra),
    traces: async (subject) => ({
      alice: await subjectsOf(alice, subject),
      bob: await subjectsOf(bob, subject),
      outside: (await sandbox.outbox()).filter((entry) => entry.subject === subject),
    }),
  };
}

export { refusal } from './mailbox-refusal.js';
