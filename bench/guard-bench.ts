import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { resolveConfig } from '../src/config.js';
import { Deadline } from '../src/gate/deadline.js';
import type { CheckContext, CheckOutcome, OutgoingBatch } from '../src/gate/outgoing.js';
import type { JmapResponse } from '../src/jmap/jmap-types.js';
import { checkOutgoing } from '../src/request/check-outgoing.js';
import type { BenchSection } from './bench-section.js';

/**
 * The send guard's own cost per send when nothing must be fetched: a send_mail batch (a draft and
 * its submission) through the check stage and its settle hook, with no policy file and with a full
 * one (allow-list, block-list, caps, scan), side by side with a check that does nothing, one send
 * of each in turn. It covers reading the layers, judging, the secret scan, the wake mark, the caps
 * slot and the audit line: everything but the service's round trip. Wall time on a shared machine
 * includes waiting for the file system's thread pool, so the process's CPU time is shown beside it.
 */

const inbox = 'bench@agent-mailbox.test';

function sendBatch(n: number): OutgoingBatch {
  return {
    kind: 'batch',
    request: {
      using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission'],
      methodCalls: [
        [
          'Email/set',
          {
            accountId: inbox,
            create: {
              draft: {
                mailboxIds: { D: true },
                keywords: { $draft: true },
                from: [{ email: inbox }],
                to: [{ name: 'Ana', email: 'ana@example.org' }],
                subject: `Quarterly numbers ${n}`,
                bodyValues: { body: { value: 'Hi Ana,\nthe numbers are attached as discussed.\nBest' } },
                textBody: [{ partId: 'body', type: 'text/plain' }],
              },
            },
          },
          'draft',
        ],
        [
          'EmailSubmission/set',
          {
            accountId: inbox,
            create: { send: { emailId: '#draft', identityId: 'I1' } },
            onSuccessUpdateEmail: { '#send': { 'keywords/$draft': null } },
          },
          'submit',
        ],
      ],
    },
  };
}

const answer: JmapResponse = {
  methodResponses: [
    ['Email/set', { created: { draft: { id: 'M1' } } }, 'draft'],
    ['EmailSubmission/set', { created: { send: { id: 'S1' } } }, 'submit'],
  ],
};

async function contextIn(dir: string, policy?: Record<string, unknown>): Promise<CheckContext> {
  const config = resolveConfig({ env: { XDG_CONFIG_HOME: join(dir, 'config'), HOME: dir } });
  await mkdir(join(dir, 'inbox'), { recursive: true, mode: 0o700 });
  if (policy)
    await writeFile(join(dir, 'inbox', 'policy.json'), JSON.stringify({ version: 1, ...policy }), { mode: 0o600 });
  const nothingFetched = (): never => {
    throw new Error('the guard fetched something in a bench that needs nothing fetched');
  };
  return {
    credentialsDir: join(dir, 'inbox'),
    frontDoor: 'cli',
    isWake: false,
    deadline: Deadline.start({ timeoutMs: 30_000 }),
    guard: {},
    config: async () => config,
    inbox: async () => ({ inbox, stateDir: join(dir, 'inbox') }),
    session: async () => ({
      sessionUrl: '',
      apiUrl: '',
      uploadUrl: '',
      downloadUrl: '',
      accountId: inbox,
      capabilities: [],
      accountCapabilities: [],
      limits: {},
      mailboxIdsByRole: { drafts: 'D', sent: 'S' },
      fetchedAt: '',
    }),
    read: nothingFetched,
    download: nothingFetched,
    notify: () => undefined,
  };
}

type Check = (batch: OutgoingBatch, ctx: CheckContext) => Promise<CheckOutcome | void>;
interface Variant {
  label: string;
  check: Check;
  ctx: CheckContext;
  wall: number[];
  cpu: number[];
}

async function oneSend(variant: Variant, n: number): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcome = await variant.check(sendBatch(n), variant.ctx);
  await outcome?.settle?.({ kind: 'batch', response: answer });
  variant.wall.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  variant.cpu.push((used.user + used.system) / 1000);
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const mean = (values: readonly number[]): number => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

export const guardBenchSection: BenchSection = {
  title: 'Send guard: cost per send when nothing must be fetched',
  async run({ seconds }) {
    const base = await mkdtemp(join(tmpdir(), 'guard-bench-'));
    try {
      const variants: Variant[] = [
        {
          label: 'a check that does nothing',
          check: async () => undefined,
          ctx: await contextIn(join(base, 'none')),
          wall: [],
          cpu: [],
        },
        {
          label: 'the guard, no policy file (open)',
          check: checkOutgoing,
          ctx: await contextIn(join(base, 'open')),
          wall: [],
          cpu: [],
        },
        {
          label: 'the guard, allow-list + block-list + caps + scan',
          check: checkOutgoing,
          ctx: await contextIn(join(base, 'full'), {
            send: {
              mode: 'allowlist',
              allow: ['example.org'],
              block: ['evil.test'],
              maxSendsPerHour: 1_000_000,
              maxSendsPerDay: 1_000_000,
              maxRecipients: 10,
            },
          }),
          wall: [],
          cpu: [],
        },
      ];
      // The first sends load the rule set and warm the JIT: no send's steady cost.
      for (let n = 0; n < 10; n += 1) for (const variant of variants) await oneSend(variant, n);
      for (const variant of variants) variant.wall.length = variant.cpu.length = 0;
      const until = performance.now() + seconds * 1000;
      for (let n = 0; performance.now() < until || n < 50; n += 1)
        for (const variant of variants) await oneSend(variant, n);
      const lines = variants.map(
        (v) =>
          `${v.label.padEnd(48)} wall ${median(v.wall).toFixed(2).padStart(6)} ms median ${mean(v.wall).toFixed(2).padStart(6)} ms mean   cpu ${median(v.cpu).toFixed(2).padStart(5)} ms median   (${v.wall.length} sends)`,
      );
      const worst = Math.max(...variants.slice(1).map((v) => median(v.wall)));
      lines.push(
        `limit 5 ms per send (median wall): ${worst <= 5 ? 'met' : 'NOT met'}; load average ${loadavg()[0]?.toFixed(1)} on this machine during the run`,
      );
      return lines.join('\n');
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  },
};
