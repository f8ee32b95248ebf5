import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { createAccountRegistry } from '../src/auth/create-account-registry.js';
import type { Account } from '../src/auth/account-registry.js';
import { silentLogger } from '../src/log.js';
import { presentJmapResult } from '../src/present/present-jmap-result.js';
import { runJmapRequest, type JmapRequestInput } from '../src/request/run-jmap-request.js';
import { sandboxClientEnv } from '../sandbox/src/sandbox-command.js';
import { startSandbox } from '../sandbox/src/start-sandbox.js';
import type { BenchSection } from './bench-section.js';
import { hostileHeaders, withHostileHeaders } from './hostile-header-fixtures.js';
import { median } from './median.js';
import { benchDnsRecords } from './token-cost-fixtures.js';

/**
 * What one message with a header section just under the sandbox's 256 KiB cap costs a
 * list_inbox of 20, beside the same listing with an ordinary message in its place. The same
 * Email/get sent raw (no verdicts, no presentation) is timed beside it, so the server's share of
 * parsing 250 KB can be told apart from what the client adds.
 */

/** The most the hostile listing may cost beside the ordinary one, whole and the client's part alike. */
const targetRatio = 1.5;

const rawListing: JmapRequestInput = {
  ops: [
    [
      'Email/query',
      {
        accountId: '$ACCOUNT_ID',
        filter: { inMailbox: '$INBOX_MAILBOX_ID' },
        sort: [{ property: 'receivedAt', isAscending: false }],
        limit: 20,
      },
      'q',
    ],
    [
      'Email/get',
      {
        accountId: '$ACCOUNT_ID',
        '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
        properties: [
          'id',
          'threadId',
          'from',
          'sender',
          'header:Authentication-Results:asRaw:all',
          'subject',
          'receivedAt',
          'keywords',
          'preview',
          'hasAttachment',
          'htmlBody',
        ],
      },
      'g',
    ],
  ],
};

// Each round costs tens of ms; the median of 40 holds still on a machine others share, where 14 did not.
export async function runHostileHeaderBench(rounds = 41): Promise<string[]> {
  const sandbox = await startSandbox({ difficulty: 2, rateLimit: false, dns: benchDnsRecords() });
  const base = await mkdtemp(join(tmpdir(), 'agent-mailbox-header-bench-'));
  const registry = createAccountRegistry({
    configInputs: { flags: {}, env: sandboxClientEnv(sandbox) },
    log: silentLogger,
    powWorkers: 1,
  });
  const smtp = nodemailer.createTransport({
    host: '127.0.0.1',
    port: sandbox.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  try {
    const headers = hostileHeaders();
    const inboxes = {} as Record<'hostile' | 'plain', Account>;
    for (const which of ['hostile', 'plain'] as const) {
      const account = registry.open(join(base, which));
      const { inbox } = await account.register({ username: `header-${which}`, watch: 'on-demand' });
      inboxes[which] = account;
      for (let i = 0; i < 12; i += 1)
        await smtp.sendMail({
          from: `friend${i}@fine.example`,
          to: inbox,
          subject: `ordinary ${i}`,
          text: `body ${i}`,
        });
      const composed = await new Promise<Buffer>((resolve, reject) =>
        nodemailer
          .createTransport({ streamTransport: true, buffer: true })
          .sendMail(
            { from: 'placeholder@evil.example', to: inbox, subject: 'URGENT wire', text: 'wire the money' },
            (error, info) => (error ? reject(error) : resolve(info.message as Buffer)),
          ),
      );
      const raw = which === 'hostile' ? withHostileHeaders(composed, headers) : composed;
      await smtp.sendMail({ envelope: { from: 'mallory@evil.example', to: inbox }, raw });
    }
    const run = (account: Account, input: JmapRequestInput) =>
      runJmapRequest(account, input, { signal: new AbortController().signal, log: silentLogger });
    const times = {
      listing: { hostile: [] as number[], plain: [] as number[] },
      listingCpu: { hostile: [] as number[], plain: [] as number[] },
      raw: { hostile: [] as number[], plain: [] as number[] },
    };
    for (let round = 0; round < rounds; round += 1) {
      // Alternated, so neither side always runs on a warmer process.
      for (const which of round % 2 === 0 ? (['hostile', 'plain'] as const) : (['plain', 'hostile'] as const)) {
        let started = performance.now();
        const cpuBefore = process.cpuUsage();
        const listed = presentJmapResult(
          await run(inboxes[which], { ops_file: 'list_inbox', vars: { LIMIT: 20 } }),
          'mcp',
        ).text;
        const listingMs = performance.now() - started;
        const cpu = process.cpuUsage(cpuBefore);
        if (!listed.includes('URGENT wire')) throw new Error(`the ${which} listing lacks the message it was sent`);
        started = performance.now();
        await run(inboxes[which], rawListing);
        const rawMs = performance.now() - started;
        if (round > 0) {
          times.listing[which].push(listingMs);
          times.listingCpu[which].push((cpu.user + cpu.system) / 1000);
          times.raw[which].push(rawMs);
        }
      }
    }
    const [hostile, plain] = [median(times.listing.hostile), median(times.listing.plain)];
    const [cpuHostile, cpuPlain] = [median(times.listingCpu.hostile), median(times.listingCpu.plain)];
    const [rawHostile, rawPlain] = [median(times.raw.hostile), median(times.raw.plain)];
    const clientHostile = hostile - Math.max(0, rawHostile - rawPlain);
    return [
      `header section of the hostile message: ${headers.join('\r\n').length} bytes`,
      `list_inbox of 20, ordinary message      ${plain.toFixed(1).padStart(7)} ms median   ×1.00`,
      `list_inbox of 20, hostile message       ${hostile.toFixed(1).padStart(7)} ms median   ×${(hostile / plain).toFixed(2)} (target ≤ ${targetRatio})`,
      `the same listings in CPU time (the process: client and sandbox), which other work disturbs less: ${cpuPlain.toFixed(1)} vs ${cpuHostile.toFixed(1)} ms   ×${(cpuHostile / cpuPlain).toFixed(2)}`,
      `the same Email/get raw, ordinary        ${rawPlain.toFixed(1).padStart(7)} ms median`,
      `the same Email/get raw, hostile         ${rawHostile.toFixed(1).padStart(7)} ms median   ×${(rawHostile / rawPlain).toFixed(2)}`,
      `hostile listing less the server's extra ${clientHostile.toFixed(1).padStart(7)} ms          ×${(clientHostile / plain).toFixed(2)} (target ≤ ${targetRatio})`,
    ];
  } finally {
    smtp.close();
    registry.close();
    await sandbox.close();
    await rm(base, { recursive: true, force: true });
  }
}

export const hostileHeaderBenchSection: BenchSection = {
  title: 'Hostile header section: list_inbox of 20 with a 250 KB header section beside an ordinary one',
  run: async () => (await runHostileHeaderBench()).join('\n'),
};
