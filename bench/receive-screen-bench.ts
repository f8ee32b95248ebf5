import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { createAccountRegistry } from '../src/auth/create-account-registry.js';
import { silentLogger } from '../src/log.js';
import { policyVersion, type PolicyFile } from '../src/policy/policy-schema.js';
import { runJmapRequest } from '../src/request/run-jmap-request.js';
import { sandboxClientEnv } from '../sandbox/src/sandbox-command.js';
import { startSandbox } from '../sandbox/src/start-sandbox.js';
import { loadInboxLayers } from '../src/screen/receive-rules.js';
import type { BenchSection } from './bench-section.js';
import { median } from './median.js';
import { benchDnsRecords } from './token-cost-fixtures.js';

/**
 * What the receive screen costs a list_inbox of 50, side by side in one run against one in-process
 * sandbox: no receive rules (the screen reads the policy files and stops), a block-list that
 * matches nothing (every listed message judged from the listing's own fields), and an allow-list
 * that holds half the inbox (judging, plus the follow-up pages that fill the listing again).
 */

const cases: { label: string; policy: PolicyFile | undefined }[] = [
  { label: 'no receive rules', policy: undefined },
  {
    label: 'block-list, nothing held',
    policy: { version: policyVersion, receive: { block: ['nobody@elsewhere.example'] } },
  },
  {
    label: 'allow-list holding half',
    policy: { version: policyVersion, receive: { mode: 'allowlist', allow: ['example.com'] } },
  },
];

export async function runReceiveScreenBench(rounds = 15): Promise<string[]> {
  const sandbox = await startSandbox({ difficulty: 2, rateLimit: false, dns: benchDnsRecords() });
  const base = await mkdtemp(join(tmpdir(), 'agent-mailbox-screen-bench-'));
  const registry = createAccountRegistry({
    configInputs: { flags: {}, env: sandboxClientEnv(sandbox) },
    log: silentLogger,
    powWorkers: 1,
  });
  try {
    const dir = join(base, 'inbox');
    const account = registry.open(dir);
    const { inbox } = await account.register({ username: 'screen-bench', watch: 'on-demand' });
    const smtp = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    // Alternating senders, so every page of the listing holds some of each.
    for (let i = 0; i < 120; i++)
      await smtp.sendMail({
        from: i % 2 === 0 ? `a${i}@example.com` : `b${i}@example.org`,
        to: inbox,
        subject: `Mail ${i}`,
        text: `body ${i}`,
      });
    smtp.close();
    const list = () =>
      runJmapRequest(
        account,
        { ops_file: 'list_inbox', vars: { LIMIT: 50 } },
        { signal: new AbortController().signal, log: silentLogger },
      );
    const times = new Map<string, number[]>(cases.map((c) => [c.label, []]));
    const policyFile = join(dir, 'policy.json');
    for (let round = 0; round < rounds; round++) {
      for (const { label, policy } of cases) {
        if (policy) await writeFile(policyFile, `${JSON.stringify(policy)}\n`, { mode: 0o600 });
        else await rm(policyFile, { force: true });
        const started = performance.now();
        const result = await list();
        const elapsed = performance.now() - started;
        if (round > 0) times.get(label)?.push(elapsed);
        if (!result.ok) throw new Error(`list_inbox failed under "${label}": ${result.summary}`);
      }
    }
    await rm(policyFile, { force: true });
    const reads: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await loadInboxLayers(account);
      reads.push(performance.now() - started);
    }
    const baseline = median(times.get(cases[0]?.label ?? '') ?? []);
    return [
      ...cases.map(({ label }) => {
        const m = median(times.get(label) ?? []);
        return `${label.padEnd(28)} list_inbox of 50: ${m.toFixed(1).padStart(6)} ms median   ×${(m / baseline).toFixed(2)}`;
      }),
      `reading the three policy layers (none present), per call: ${median(reads).toFixed(3)} ms median`,
    ];
  } finally {
    registry.close();
    await sandbox.close();
    await rm(base, { recursive: true, force: true });
  }
}

export const receiveScreenBenchSection: BenchSection = {
  title: 'Receive screen: list_inbox of 50 under no rules, a block-list, an allow-list holding half',
  run: async () => (await runReceiveScreenBench()).join('\n'),
};
