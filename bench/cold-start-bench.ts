import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccountRegistry } from '../src/auth/create-account-registry.js';
import { silentLogger } from '../src/log.js';
import { startSandbox } from '../sandbox/src/start-sandbox.js';
import type { BenchSection } from './bench-section.js';
import { median } from './median.js';

/**
 * Cold start: what a shell agent pays on every step. Each case is a whole process (spawn to exit,
 * or to the MCP answer), measured round-robin with `node -e 0` so machine load hits all alike.
 * Peak RSS and CPU time come from GNU time (`/usr/bin/time -f '%M %U %S'`: the kernel's maxrss and
 * rusage of the child) wrapped around every case, `node -e 0` included, so the wrapper's own cost
 * cancels in the ratios. CPU time is the figure to read on a loaded machine, where wall times swell.
 */

const gnuTime = '/usr/bin/time';
const packageBin = fileURLToPath(new URL('../../bin/agent-mailbox.js', import.meta.url));

interface Sample {
  wallMs: number;
  /** Milestones inside the run (MCP: initialize answered), ms from spawn. */
  marks: Record<string, number>;
  rssKiB: number | undefined;
  /** User + system CPU time of the process (GNU time's %U + %S): what load on the machine disturbs least. */
  cpuMs: number | undefined;
}

interface ProcessCase {
  name: string;
  args: string[];
  /** Drives the child's stdio; resolves with milestone times once the child may exit. */
  drive?: (child: ReturnType<typeof spawn>, started: number) => Promise<Record<string, number>>;
  /** Resolves when the run has gone far enough (the PoW started): the child is killed then. */
  stopWhen?: () => Promise<void>;
  /** Variables over the round's environment; given the run's index, so a run can have a folder of its own. */
  env?: (index: number) => NodeJS.ProcessEnv;
}

async function runCase(c: ProcessCase, env: NodeJS.ProcessEnv, workDir: string, index: number): Promise<Sample> {
  const rssFile = join(workDir, `rss-${index}`);
  const withTime = existsSync(gnuTime) && !c.stopWhen;
  const [command, args] = withTime
    ? [gnuTime, ['-f', '%M %U %S', '-o', rssFile, process.execPath, ...c.args]]
    : [process.execPath, c.args];
  const started = performance.now();
  const child = spawn(command, args, { env: { ...env, ...c.env?.(index) }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  let stoppedAt: number | undefined;
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  void c.stopWhen?.().then(() => {
    stoppedAt = performance.now();
    child.kill('SIGKILL');
  });
  const marks = c.drive ? await c.drive(child, started) : {};
  if (!c.drive) child.stdin.end();
  const code = await exited;
  const wallMs = (stoppedAt ?? performance.now()) - started;
  if (stoppedAt === undefined && code !== 0)
    throw new Error(`${c.name} exited ${code}: ${stderr.slice(0, 400)}${stdout.slice(0, 200)}`);
  const timed = withTime ? ((await readFile(rssFile, 'utf8')).trim().split('\n').at(-1) ?? '').split(' ') : [];
  const [rssKiB, userS, systemS] = timed.map(Number);
  const cpuMs = userS !== undefined && systemS !== undefined ? (userS + systemS) * 1000 : undefined;
  return { wallMs, marks, rssKiB, cpuMs };
}

/** Talks JSON-RPC over the child's stdio by hand, so the bench itself adds no SDK between the lines. */
function driveMcp(child: ReturnType<typeof spawn>, started: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const marks: Record<string, number> = {};
    let buffer = '';
    const send = (message: unknown): void => void child.stdin?.write(`${JSON.stringify(message)}\n`);
    child.stdout?.on('data', (d: Buffer | string) => {
      buffer += d.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; error?: unknown };
        if (message.error) reject(new Error(`MCP error: ${JSON.stringify(message.error)}`));
        if (message.id === 1) {
          marks.initialize = performance.now() - started;
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          marks.toolsList = performance.now() - started;
          child.stdin?.end();
          resolve(marks);
        }
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'cold-start-bench', version: '0' },
      },
    });
  });
}

/** A pass-through proxy in front of an auth host that reports each answered challenge. */
async function watchChallenges(
  target: string,
): Promise<{ url: string; next(): Promise<void>; close(): Promise<void> }> {
  let waiting: (() => void) | undefined;
  const server = createServer((req, res) => {
    const upstream = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        if (req.url?.includes('/challenge')) res.on('finish', () => waiting?.());
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    next: () => new Promise<void>((resolve) => (waiting = resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The mean, not the median: GNU time counts CPU in 10 ms steps, which a median of ten would keep. */
function cpuOf(list: readonly Sample[]): number {
  return list.reduce((sum, s) => sum + (s.cpuMs ?? Number.NaN), 0) / list.length;
}

export interface ColdStartOptions {
  runs?: number;
  /** The CLI entry to measure (default: the package's bin/agent-mailbox.js). */
  bin?: string;
  /** Other builds' entries measured in the same rounds (e.g. an older commit's), labelled by their folder. */
  compare?: readonly string[];
  log?: (line: string) => void;
}

/** The package entry of a build given as its dist/bin.js (what --compare names), so help goes through its front too. */
export function packageEntryOf(bin: string): string {
  const entry = bin.replace(/dist[\\/]bin\.js$/, join('bin', 'agent-mailbox.js'));
  return entry !== bin && existsSync(entry) ? entry : bin;
}

/** Runs every case `runs` times round-robin against one in-process sandbox; returns printed lines. */
export async function runColdStartBench(options: ColdStartOptions = {}): Promise<string[]> {
  const runs = options.runs ?? 10;
  const bin = options.bin ?? packageBin;
  const log = options.log ?? (() => undefined);
  const sandbox = await startSandbox({ difficulty: 4 });
  const slowSandbox = await startSandbox({ difficulty: 30 });
  const challengeWatch = await watchChallenges(slowSandbox.authUrl);
  const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-cold-'));
  const credentialsDir = join(workDir, 'credentials');
  const sandboxEnv = (s: typeof sandbox, dir: string, authUrl = s.authUrl): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: workDir,
    AGENT_MAILBOX_AUTH_URL: authUrl,
    AGENT_MAILBOX_API_URL: s.apiUrl,
    AGENT_MAILBOX_SCRYPT_SALT: s.salt,
    AGENT_MAILBOX_INBOX_DOMAIN: s.domain,
    AGENT_MAILBOX_CREDENTIALS_DIR: dir,
    AGENT_MAILBOX_CRONTAB: '/nonexistent/agent-mailbox-bench/crontab',
  });
  const env = sandboxEnv(sandbox, credentialsDir);
  const registry = createAccountRegistry({ configInputs: { env, flags: {} }, log: silentLogger });
  try {
    await registry.open(credentialsDir).register({ username: 'cold-start', watch: 'on-demand' });
    registry.close();
    const builds = [
      { label: '', bin },
      ...(options.compare ?? []).map((other) => ({
        label: `${other.replace(/[\\/]dist[\\/]bin\.js$/, '')}: `,
        bin: packageEntryOf(other),
      })),
    ];
    const cases: ProcessCase[] = [
      { name: 'node -e 0', args: ['-e', '0'] },
      ...builds.flatMap(({ label, bin: entry }): ProcessCase[] => [
        { name: `${label}help`, args: [entry, 'help'] },
        {
          name: `${label}jmap_request --ops-file list_inbox`,
          args: [entry, 'jmap_request', '--ops-file', 'list_inbox'],
        },
        { name: `${label}mcp`, args: [entry, 'mcp'], drive: driveMcp },
      ]),
      // The package bin loads its bundle with V8's code cache (src/start/load-bundle.ts), which the
      // untimed rounds write: these show a start without it, and the first start, which writes it.
      {
        name: 'no code cache: jmap_request --ops-file list_inbox',
        args: [packageEntryOf(bin), 'jmap_request', '--ops-file', 'list_inbox'],
        env: () => ({ AGENT_MAILBOX_NO_CODE_CACHE: '1' }),
      },
      {
        name: 'first run, writes the code cache: jmap_request --ops-file list_inbox',
        args: [packageEntryOf(bin), 'jmap_request', '--ops-file', 'list_inbox'],
        env: (index) => ({ XDG_CACHE_HOME: join(workDir, `first-run-cache-${index}`) }),
      },
      {
        name: 'no code cache: mcp',
        args: [packageEntryOf(bin), 'mcp'],
        drive: driveMcp,
        env: () => ({ AGENT_MAILBOX_NO_CODE_CACHE: '1' }),
      },
    ];
    // Untimed rounds cache the JMAP session on disk, warm the page cache and the in-process
    // sandbox's JIT (its first answers are several times slower than later ones).
    for (let warm = 0; warm < 3; warm++)
      for (const [i, c] of cases.entries()) await runCase(c, env, workDir, -1 - i - warm * 10);
    const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
    // register up to the PoW: the challenge is answered by a sandbox whose difficulty never
    // finishes; the process is stopped (and its wall time taken) when that answer has been sent.
    const registerCase: ProcessCase = {
      name: 'register (spawn → challenge answered)',
      args: [bin, 'register', '--username', 'cold-register', '--watch', 'on-demand'],
      stopWhen: () => challengeWatch.next(),
    };
    samples.set(registerCase.name, []);
    log(`cold start: ${runs} rounds of ${cases.length + 1} processes`);
    for (let round = 0; round < runs; round++) {
      // Alternate the order each round so no case always runs right after the same one.
      const order = round % 2 === 0 ? [...cases, registerCase] : [registerCase, ...cases].reverse();
      for (const [i, c] of order.entries()) {
        const caseEnv =
          c === registerCase ? sandboxEnv(slowSandbox, join(workDir, `register-${round}`), challengeWatch.url) : env;
        samples.get(c.name)?.push(await runCase(c, caseEnv, workDir, round * 10 + i));
      }
    }
    const base = samples.get('node -e 0') ?? [];
    const baseWall = median(base.map((s) => s.wallMs));
    const baseRss = median(base.map((s) => s.rssKiB ?? Number.NaN)) / 1024;
    const baseCpu = cpuOf(base);
    const lines = [
      `${runs} alternating runs, medians; peak RSS by ${existsSync(gnuTime) ? 'GNU time %M' : 'n/a (no /usr/bin/time)'}; bin: ${bin}`,
    ];
    const row = (name: string, wall: number, rssMiB: number, cpu = Number.NaN): string =>
      `${name.padEnd(56)} ${wall.toFixed(1).padStart(7)} ms  (node ${wall >= baseWall ? '+' : ''}${(wall - baseWall).toFixed(1)} ms, ×${(wall / baseWall).toFixed(2)})  ${Number.isNaN(rssMiB) ? '' : `${rssMiB.toFixed(1)} MiB (×${(rssMiB / baseRss).toFixed(2)})`}${Number.isNaN(cpu) ? '' : `  CPU ${cpu.toFixed(0)} ms mean (node +${(cpu - baseCpu).toFixed(0)})`}`;
    for (const [name, list] of samples) {
      const rss = median(list.map((s) => s.rssKiB ?? Number.NaN)) / 1024;
      if (name.endsWith('mcp')) {
        const label = name.slice(0, -'mcp'.length);
        lines.push(
          row(`${label}mcp spawn → initialize`, median(list.map((s) => s.marks.initialize ?? Number.NaN)), Number.NaN),
        );
        lines.push(
          row(`${label}mcp spawn → tools/list`, median(list.map((s) => s.marks.toolsList ?? Number.NaN)), Number.NaN),
        );
        lines.push(row(`${label}mcp whole process (to exit)`, median(list.map((s) => s.wallMs)), rss, cpuOf(list)));
      } else {
        lines.push(row(name, median(list.map((s) => s.wallMs)), rss, cpuOf(list)));
      }
    }
    return lines;
  } finally {
    registry.close();
    await sandbox.close();
    await challengeWatch.close();
    await slowSandbox.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Other builds to run in the same rounds: `--compare <dist/bin.js>` of run-bench. */
export function coldStartBenchSection(compare: readonly string[] = []): BenchSection {
  return {
    title: 'Cold start (whole process, vs node -e 0)',
    run: async () =>
      (await runColdStartBench({ compare, log: (line) => process.stderr.write(`${line}\n`) })).join('\n'),
  };
}
