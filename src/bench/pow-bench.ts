import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import scryptJs from 'scrypt-js';
import { computePowDigest } from '../pow/pow-digest.js';
import { romixKernel } from '../pow/romix-kernel.js';
import { createScryptLanes } from '../pow/scrypt-lanes.js';
import { solvePow, type PowEngine } from '../pow/solve-pow.js';
import { liveScryptSalt, scryptParams } from '../wire-constants.js';
import type { BenchSection } from './bench-section.js';
import { measureSolverCancel, type CancelFigures } from './pow-cancel-bench.js';

interface Sample {
  hashes: number;
  ms: number;
  /** Peak resident memory above the process's before the sample, in bytes (solver samples only). */
  extraRss?: number;
}

/** Rate of one approach: over all its slices, and the slowest and fastest slice. */
export interface Rate {
  perSecond: number;
  low: number;
  high: number;
}

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
  let sample: Sample = { hashes: 0, ms: 0, extraRss: 0 };
  const running = solvePow({
    challenge: `bench-${randomBytes(8).toString('hex')}`,
    difficulty: 30,
    salt: liveScryptSalt,
    engine,
    signal: controller.signal,
    progressIntervalMs: 100,
    onProgress: (p) => {
      sample = { hashes: p.tried, ms: p.elapsedMs, extraRss: Math.max(sample.extraRss ?? 0, process.memoryUsage.rss() - rssBefore) };
      if (p.elapsedMs >= seconds * 1000) controller.abort();
    },
  });
  await running.catch(() => undefined);
  return sample;
}

/** Hashes of the SIMD kernel on this thread, one nonce per lane. */
function sampleKernel(seconds: number, lanes: ReturnType<typeof createScryptLanes>): Sample {
  const salt = Buffer.from(liveScryptSalt, 'utf8');
  const started = performance.now();
  let hashes = 0;
  while (performance.now() - started < seconds * 1000) {
    const passwords = Array.from({ length: lanes.lanes }, (_, lane) => Buffer.from(`bench-kernel:${hashes + lane}`, 'utf8'));
    lanes.hash(passwords, salt, scryptParams.dkLen);
    hashes += lanes.lanes;
  }
  return { hashes, ms: performance.now() - started };
}

/** Hashes of a loop running one native scrypt at a time (what the reference client does). */
async function sampleSerial(seconds: number): Promise<Sample> {
  const started = performance.now();
  let hashes = 0;
  while (performance.now() - started < seconds * 1000) {
    await computePowDigest('bench-serial', hashes, liveScryptSalt);
    hashes += 1;
  }
  return { hashes, ms: performance.now() - started };
}

/** Hashes of scrypt-js, the pure-JS implementation, on this thread. */
async function sampleScryptJs(seconds: number): Promise<Sample> {
  const { N, r, p, dkLen } = scryptParams;
  const salt = new TextEncoder().encode(liveScryptSalt);
  const started = performance.now();
  let hashes = 0;
  while (performance.now() - started < seconds * 1000) {
    await scryptJs.scrypt(new TextEncoder().encode(`bench-js:${hashes}`), salt, N, r, p, dkLen);
    hashes += 1;
  }
  return { hashes, ms: performance.now() - started };
}

const rateOf = (samples: Sample[]): Rate => {
  const ms = samples.reduce((sum, s) => sum + s.ms, 0);
  const each = samples.map((s) => (s.ms > 0 ? (s.hashes * 1000) / s.ms : 0));
  return { perSecond: ms > 0 ? (samples.reduce((sum, s) => sum + s.hashes, 0) * 1000) / ms : 0, low: Math.min(...each), high: Math.max(...each) };
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
  const samples = { kernel: [] as Sample[], serial: [] as Sample[], js: [] as Sample[], solver: [] as Sample[], nativeSolver: [] as Sample[] };
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

/** The printed report: rates, their spread over slices, and the ratios issue 25 asks for. */
export function formatPowBench(f: PowBenchFigures): string {
  const rate = (r: Rate): string => `${r.perSecond.toFixed(1).padStart(6)} hashes/s  (slices ${r.low.toFixed(1)}–${r.high.toFixed(1)})`;
  const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
  const row = (label: string, value: string): string => `  ${label.padEnd(52)} ${value}`;
  const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  const native = f.serialNative.perSecond;
  return [
    `scrypt N=${scryptParams.N} r=${scryptParams.r} p=${scryptParams.p} dkLen=${scryptParams.dkLen}; ${f.cores} cores; ${f.seconds} s per approach, interleaved; load average ${f.load.before.toFixed(2)} → ${f.load.after.toFixed(2)}`,
    'one core:',
    row('WebAssembly SIMD kernel (4 nonces a pass)', rate(f.kernel)),
    row('node:crypto (one crypto.scrypt at a time)', rate(f.serialNative)),
    row('scrypt-js (pure JS)', rate(f.scryptJs)),
    row('kernel ÷ node:crypto', ratio(f.kernel.perSecond, native)),
    row('node:crypto ÷ scrypt-js', ratio(native, f.scryptJs.perSecond)),
    `all cores (${f.cores} worker threads, shared counter):`,
    row('solver, SIMD kernel (the default)', rate(f.solver)),
    row('solver, node:crypto', rate(f.nativeSolver)),
    row('solver ÷ serial node:crypto', ratio(f.solver.perSecond, native)),
    row('solver ÷ (cores × serial node:crypto)', `${ratio(f.solver.perSecond, f.cores * native)}  (target ≥ 1.80×)`),
    row('SIMD solver ÷ node:crypto solver', ratio(f.solver.perSecond, f.nativeSolver.perSecond)),
    row('solver ÷ scrypt-js', ratio(f.solver.perSecond, f.scryptJs.perSecond)),
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
