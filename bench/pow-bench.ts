import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import scryptJs from 'scrypt-js';
import { computePowDigest } from '../src/pow/pow-digest.js';
import { romixKernel } from '../src/pow/romix-kernel.js';
import { createScryptLanes } from '../src/pow/scrypt-lanes.js';
import { solvePow, type PowEngine } from '../src/pow/solve-pow.js';
import { liveScryptSalt, scryptParams } from '../src/wire-constants.js';
import type { BenchSection } from './bench-section.js';
import { measureSolverCancel, type CancelFigures } from './pow-cancel-bench.js';

interface Sample {
  hashes: number;
  ms: number;
  /** CPU time of the whole process (every thread) over the sample. */
  cpuMs: number;
  /** Peak resident memory above the process's before the sample, in bytes (solver samples only). */
  extraRss?: number;
}

/** Rate of one approach: over all its slices, and the slowest and fastest slice. */
export interface Rate {
  perSecond: number;
  low: number;
  high: number;
  /**
   * Hashes per second of CPU time the process spent: the rate per core in use, which other
   * processes on the machine disturb far less than the wall-clock rate.
   */
  perCpuSecond: number;
}

/** Wall-clock and CPU milliseconds since `from`. */
function since(from: { wall: number; cpu: NodeJS.CpuUsage }): { ms: number; cpuMs: number } {
  const cpu = process.cpuUsage(from.cpu);
  return { ms: performance.now() - from.wall, cpuMs: (cpu.user + cpu.system) / 1000 };
}
const now = (): { wall: number; cpu: NodeJS.CpuUsage } => ({ wall: performance.now(), cpu: process.cpuUsage() });

export interface PowBenchFigures {
  cores: number;
  seconds: number;
  load: { before: number; after: number };
  /** One thread each. */
  kernel: Rate;
  serialNative: Rate;
  scryptJs: Rate;
  /** Worker threads, one per core. */
  solver: Rate;
  nativeSolver: Rate;
  kernelPassMs: number;
  /** Peak RSS the solver adds per worker (its isolate and hashing memory). */
  workerRss: Record<PowEngine, number>;
  cancel: CancelFigures;
}

/** Hashes of the worker solver over `seconds`: an unsolvable difficulty, cancelled at the end. */
async function sampleSolver(seconds: number, engine: PowEngine): Promise<Sample> {
  const controller = new AbortController();
  const rssBefore = process.memoryUsage.rss();
  const start = now();
  let sample: Sample = { hashes: 0, ms: 0, cpuMs: 0, extraRss: 0 };
  const running = solvePow({
    challenge: `bench-${randomBytes(8).toString('hex')}`,
    difficulty: 30,
    salt: liveScryptSalt,
    engine,
    signal: controller.signal,
    progressIntervalMs: 100,
    onProgress: (p) => {
      sample = {
        hashes: p.tried,
        ...since(start),
        extraRss: Math.max(sample.extraRss ?? 0, process.memoryUsage.rss() - rssBefore),
      };
      if (p.elapsedMs >= seconds * 1000) controller.abort();
    },
  });
  await running.catch(() => undefined);
  return sample;
}

/** Hashes of the SIMD kernel on this thread, one nonce per lane. */
function sampleKernel(seconds: number, lanes: ReturnType<typeof createScryptLanes>): Sample {
  const salt = Buffer.from(liveScryptSalt, 'utf8');
  const start = now();
  let hashes = 0;
  while (performance.now() - start.wall < seconds * 1000) {
    const passwords = Array.from({ length: lanes.lanes }, (_, lane) =>
      Buffer.from(`bench-kernel:${hashes + lane}`, 'utf8'),
    );
    lanes.hash(passwords, salt, scryptParams.dkLen);
    hashes += lanes.lanes;
  }
  return { hashes, ...since(start) };
}

/** Hashes of a loop running one native scrypt at a time (what the reference client does). */
async function sampleSerial(seconds: number): Promise<Sample> {
  const start = now();
  let hashes = 0;
  while (performance.now() - start.wall < seconds * 1000) {
    await computePowDigest('bench-serial', hashes, liveScryptSalt);
    hashes += 1;
  }
  return { hashes, ...since(start) };
}

/** Hashes of scrypt-js, the pure-JS implementation, on this thread. */
async function sampleScryptJs(seconds: number): Promise<Sample> {
  const { N, r, p, dkLen } = scryptParams;
  const salt = new TextEncoder().encode(liveScryptSalt);
  const start = now();
  let hashes = 0;
  while (performance.now() - start.wall < seconds * 1000) {
    await scryptJs.scrypt(new TextEncoder().encode(`bench-js:${hashes}`), salt, N, r, p, dkLen);
    hashes += 1;
  }
  return { hashes, ...since(start) };
}

const rateOf = (samples: Sample[]): Rate => {
  const total = (pick: (s: Sample) => number): number => samples.reduce((sum, s) => sum + pick(s), 0);
  const per = (hashes: number, ms: number): number => (ms > 0 ? (hashes * 1000) / ms : 0);
  const each = samples.map((s) => per(s.hashes, s.ms));
  const hashes = total((s) => s.hashes);
  return {
    perSecond: per(
      hashes,
      total((s) => s.ms),
    ),
    low: Math.min(...each),
    high: Math.max(...each),
    perCpuSecond: per(
      hashes,
      total((s) => s.cpuMs),
    ),
  };
};

/**
 * Measures the approaches side by side in one run, interleaved in slices of up to 2 s, so load
 * from other processes during the run weighs on all of them alike.
 */
export async function runPowBench(seconds: number): Promise<PowBenchFigures> {
  const kernel = romixKernel();
  if (!kernel) throw new Error('this Node runs no WebAssembly SIMD: the kernel cannot be measured');
  const lanes = createScryptLanes(kernel, scryptParams, pbkdf2Sync);
  // The first pass runs before V8 has optimised the kernel (about twice as slow); not a steady figure.
  sampleKernel(0, lanes);
  const slice = Math.min(2, seconds);
  const rounds = Math.max(1, Math.round(seconds / slice));
  const cores = availableParallelism();
  const loadBefore = loadavg()[0]!;
  const samples = {
    kernel: [] as Sample[],
    serial: [] as Sample[],
    js: [] as Sample[],
    solver: [] as Sample[],
    nativeSolver: [] as Sample[],
  };
  for (let round = 0; round < rounds; round += 1) {
    samples.solver.push(await sampleSolver(slice, 'wasm-simd'));
    samples.kernel.push(sampleKernel(slice, lanes));
    samples.serial.push(await sampleSerial(slice));
    samples.nativeSolver.push(await sampleSolver(slice, 'node-crypto'));
    samples.js.push(await sampleScryptJs(slice));
  }
  const kernel1 = rateOf(samples.kernel);
  const perWorker = (list: Sample[]): number => Math.max(...list.map((s) => s.extraRss ?? 0)) / cores;
  return {
    cores,
    seconds: slice * rounds,
    load: { before: loadBefore, after: loadavg()[0]! },
    kernel: kernel1,
    serialNative: rateOf(samples.serial),
    scryptJs: rateOf(samples.js),
    solver: rateOf(samples.solver),
    nativeSolver: rateOf(samples.nativeSolver),
    kernelPassMs: (lanes.lanes * 1000) / kernel1.perSecond,
    workerRss: { 'wasm-simd': perWorker(samples.solver), 'node-crypto': perWorker(samples.nativeSolver) },
    cancel: await measureSolverCancel(),
  };
}

/** The printed report: rates, their spread over slices, and how the kernel and the solver compare with node:crypto and scrypt-js. */
export function formatPowBench(f: PowBenchFigures): string {
  const rate = (r: Rate): string =>
    `${r.perSecond.toFixed(1).padStart(6)} hashes/s (slices ${r.low.toFixed(1)}–${r.high.toFixed(1)}); ${r.perCpuSecond.toFixed(1)} per CPU-second`;
  const times = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
  const ratio = (a: Rate, b: Rate, cores = 1): string =>
    `${times(a.perSecond, cores * b.perSecond)} (per CPU-second: ${times(a.perCpuSecond, b.perCpuSecond)})`;
  const row = (label: string, value: string): string => `  ${label.padEnd(44)} ${value}`;
  const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  return [
    `scrypt N=${scryptParams.N} r=${scryptParams.r} p=${scryptParams.p} dkLen=${scryptParams.dkLen}; ${f.cores} cores; ${f.seconds} s per approach, interleaved; load average ${f.load.before.toFixed(2)} → ${f.load.after.toFixed(2)}`,
    'one core:',
    row('WebAssembly SIMD kernel (4 nonces a pass)', rate(f.kernel)),
    row('node:crypto (one crypto.scrypt at a time)', rate(f.serialNative)),
    row('scrypt-js (pure JS)', rate(f.scryptJs)),
    row('kernel ÷ node:crypto', ratio(f.kernel, f.serialNative)),
    row('node:crypto ÷ scrypt-js', ratio(f.serialNative, f.scryptJs)),
    `all cores (${f.cores} worker threads, shared counter):`,
    row('solver, SIMD kernel (the default)', rate(f.solver)),
    row('solver, node:crypto', rate(f.nativeSolver)),
    row('solver ÷ serial node:crypto', times(f.solver.perSecond, f.serialNative.perSecond)),
    row('per core used: solver ÷ node:crypto', `${ratio(f.solver, f.serialNative, f.cores)}; target ≥ 1.80×`),
    row('SIMD solver ÷ node:crypto solver', ratio(f.solver, f.nativeSolver)),
    row('solver ÷ scrypt-js', times(f.solver.perSecond, f.scryptJs.perSecond)),
    'cancellation and memory:',
    row('one kernel pass (4 nonces, steady)', `${f.kernelPassMs.toFixed(0)} ms`),
    row('abort → solvePow rejects', `${f.cancel.rejectMs.toFixed(1)} ms`),
    row('abort → every worker thread gone', `${f.cancel.threadsGoneMs.toFixed(1)} ms`),
    row('peak RSS added per worker, SIMD kernel', mib(f.workerRss['wasm-simd'])),
    row('peak RSS added per worker, node:crypto', mib(f.workerRss['node-crypto'])),
  ].join('\n');
}

/** The proof-of-work section of `npm run bench`. */
export const powBenchSection: BenchSection = {
  title: 'Proof of work',
  run: async ({ seconds }) => formatPowBench(await runPowBench(seconds)),
};
