import { readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import nodemailer from 'nodemailer';
import { createAccountRegistry } from '../../src/auth/create-account-registry.js';
import { silentLogger } from '../../src/log.js';
import { policyVersion } from '../../src/policy/policy-schema.js';
import { sandboxClientEnv } from '../../sandbox/src/sandbox-command.js';
import { startSandbox } from '../../sandbox/src/start-sandbox.js';
import type { BenchSection } from '../bench-section.js';
import { median } from '../median.js';
import { installHeapProbe, type HeapSample } from './heap-probe.js';
import { realisticBlockList, realisticInbox } from './realistic-inbox-fixtures.js';
import { benchDnsRecords } from '../token-cost-fixtures.js';

/**
 * A long MCP session, as a host drives one: list_inbox and list_new in turn, thousands of times,
 * on an inbox that looks real (realistic-inbox-fixtures.ts) under a receive block-list. Several
 * builds (this one, and any other dist/bin.js given) run side by side against one in-process
 * sandbox, each with an inbox of its own holding the same mail, in alternating blocks of calls so
 * machine load hits them alike. Whole-call time is taken at the client (request written to
 * answer parsed); resident memory is the server process's VmRSS after each block, read before the
 * heap probe (heap-probe.ts) runs a full collection in it and notes the live heap.
 */

export interface SessionBuild {
  label: string;
  /** The dist/bin.js to run as `node <bin> mcp`. */
  bin: string;
  /** Extra node options for this server (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

export interface SessionBenchOptions {
  builds?: SessionBuild[];
  /** Calls per build (default 6,000). */
  calls?: number;
  /** Calls per block before the next build's turn (default 500). */
  block?: number;
  log?: (line: string) => void;
}

interface BuildFigures {
  label: string;
  times: number[];
  /** [calls so far, VmRSS in MiB] after each block. */
  rss: [number, number][];
  /** [calls so far, the probe's sample] after each block, taken after the RSS reading. */
  heap: [number, HeapSample][];
}

const thisBuild = fileURLToPath(new URL('../../bin.js', import.meta.url));

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]);
  return kib / 1024;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

/** RSS after the first block that reaches `calls` calls. */
function rssAt(rss: readonly [number, number][], calls: number): number {
  return (rss.find(([n]) => n >= calls) ?? rss.at(-1))?.[1] ?? Number.NaN;
}

export async function runMcpSessionBench(options: SessionBenchOptions = {}): Promise<string[]> {
  const builds = options.builds ?? [{ label: 'this build', bin: thisBuild }];
  const calls = options.calls ?? 6_000;
  const block = options.block ?? 500;
  const log = options.log ?? (() => undefined);
  const sandbox = await startSandbox({ difficulty: 2, rateLimit: false, dns: benchDnsRecords() });
  const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-session-bench-'));
  const probe = await installHeapProbe(workDir);
  const clients: { client: Client; transport: StdioClientTransport }[] = [];
  try {
    const inboxes: string[] = [];
    const envs: Record<string, string>[] = [];
    for (const [i] of builds.entries()) {
      const credentialsDir = join(workDir, `inbox-${i}`);
      const home = join(workDir, `home-${i}`);
      await mkdir(home, { recursive: true });
      const env = {
        ...sandboxClientEnv(sandbox, credentialsDir),
        PATH: process.env.PATH ?? '',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        AGENT_MAILBOX_CRONTAB: '/nonexistent/agent-mailbox-bench/crontab',
      };
      const registry = createAccountRegistry({ configInputs: { flags: {}, env }, log: silentLogger, powWorkers: 1 });
      try {
        const { inbox } = await registry
          .open(credentialsDir)
          .register({ username: `session-${i}`, watch: 'on-demand' });
        inboxes.push(inbox);
      } finally {
        registry.close();
      }
      const policy = { version: policyVersion, receive: { block: realisticBlockList } };
      await writeFile(join(credentialsDir, 'policy.json'), `${JSON.stringify(policy)}\n`, { mode: 0o600 });
      envs.push(env);
    }
    const mails = realisticInbox();
    log(`session bench: delivering ${mails.length} mails to ${inboxes.length} inbox(es) over SMTP`);
    const smtp = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    for (const { envelopeFrom, ...mail } of mails)
      await smtp.sendMail({
        ...mail,
        to: inboxes,
        ...(envelopeFrom ? { envelope: { from: envelopeFrom, to: inboxes } } : {}),
      });
    smtp.close();

    for (const [i, build] of builds.entries()) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [...probe.nodeArgs, ...(build.nodeArgs ?? []), build.bin, 'mcp'],
        env: { ...envs[i], ...probe.envFor(String(i)) },
        stderr: 'ignore',
      });
      const client = new Client({ name: 'agent-mailbox-session-bench', version: '0' });
      await client.connect(transport);
      clients.push({ client, transport });
    }
    const presets = ['list_inbox', 'list_new'];
    const callOnce = async (client: Client, n: number): Promise<number> => {
      const started = performance.now();
      const result = await client.callTool({ name: 'jmap_request', arguments: { ops_file: presets[n % 2] } });
      const elapsed = performance.now() - started;
      if (result.isError) throw new Error(`jmap_request failed: ${JSON.stringify(result.content).slice(0, 500)}`);
      return elapsed;
    };
    for (const { client } of clients) for (let n = 0; n < 20; n++) await callOnce(client, n);
    const figures: BuildFigures[] = builds.map((b) => ({ label: b.label, times: [], rss: [], heap: [] }));
    log(`session bench: ${calls} calls per build in blocks of ${block}, ${builds.length} build(s) alternating`);
    for (let done = 0, round = 0; done < calls; done += block, round++) {
      const order = [...clients.keys()];
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const { client, transport } = clients[index] as (typeof clients)[number];
        const figure = figures[index] as BuildFigures;
        const size = Math.min(block, calls - done);
        for (let n = 0; n < size; n++) figure.times.push(await callOnce(client, done + n));
        if (transport.pid !== null) {
          figure.rss.push([done + size, await rssMiB(transport.pid)]);
          const sample = await probe.sample(transport.pid, String(index));
          if (sample) figure.heap.push([done + size, sample]);
        }
      }
      log(`session bench: ${done + Math.min(block, calls - done)} calls per build`);
    }
    const lastSpan = Math.min(5_000, calls - 1_000);
    const perThousand = (from: number, to: number): string => {
      const growth = lastSpan > 0 ? ((to - from) / lastSpan) * 1_000 : Number.NaN;
      return `${growth >= 0 ? '+' : ''}${growth.toFixed(2)}`;
    };
    return figures.flatMap(({ label, times, rss, heap }) => {
      const first = rssAt(rss, 1_000);
      const end = rss.at(-1)?.[1] ?? Number.NaN;
      const live = heap.map(([n, s]): [number, number] => [n, s.liveHeap / 2 ** 20]);
      const sized = heap.map(([n, s]): [number, number] => [n, s.heapTotal / 2 ** 20]);
      const liveEnd = live.at(-1)?.[1] ?? Number.NaN;
      const span = (series: [number, number][]): string =>
        series.length
          ? `${Math.min(...series.map(([, v]) => v)).toFixed(1)}–${Math.max(...series.map(([, v]) => v)).toFixed(1)}`
          : 'n/a';
      return [
        `${label.padEnd(24)} ${times.length} calls: median ${median(times).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms; RSS ${first.toFixed(1)} MiB after 1,000 calls, ${end.toFixed(1)} MiB at the end (${perThousand(rssAt(rss, calls - lastSpan), end)} MiB per 1,000 over the last ${lastSpan}, no collection forced before reading it)`,
        `${' '.repeat(24)} live heap after a full collection: ${rssAt(live, 1_000).toFixed(1)} MiB after 1,000 calls, ${liveEnd.toFixed(1)} MiB at the end (${perThousand(rssAt(live, calls - lastSpan), liveEnd)} MiB per 1,000); RSS over the blocks ${span(rss)} MiB, V8's heap as sized ${span(sized)} MiB`,
      ];
    });
  } finally {
    for (const { client } of clients) await client.close().catch(() => undefined);
    await sandbox.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Other builds to run beside this one: `--compare <dist/bin.js>` of run-bench, comma-separated paths. */
export function sessionBenchSection(compare: readonly string[]): BenchSection {
  return {
    title: 'MCP session: list_inbox/list_new on a realistic inbox, builds side by side',
    run: async () =>
      (
        await runMcpSessionBench({
          builds: [
            { label: 'this build', bin: thisBuild },
            ...compare.map((bin) => ({ label: bin.replace(/\/dist\/bin\.js$/, ''), bin })),
          ],
          log: (line) => process.stderr.write(`${line}\n`),
        })
      ).join('\n'),
  };
}
