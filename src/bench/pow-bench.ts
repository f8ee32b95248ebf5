import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import scryptJs from 'scrypt-js';
import { computePowDigest } from '../pow/pow-digest.js';
import { solvePow } from '../pow/solve-pow.js';
import { liveScryptSalt, scryptParams } from '../wire-constants.js';
import type { BenchSection } from './bench-section.js';

export interface PowBenchFigures {
  cores: number;
  seconds: number;
  /** Hashes per second of each approach, measured one after another in this run. */
  solver: number;
  serialNative: number;
  scryptJs: number;
}

interface Sample {
  hashes: number;
  ms: number;
}

/** Hashes of the worker solver over `seconds`: an unsolvable difficulty, cancelled at the end. */
async function sampleSolver(seconds: number): Promise<Sample> {
  const controller = new AbortController();
  let sample: Sample = { hashes: 0, ms: 0 };
  const running = solvePow({
    challenge: `bench-${randomBytes(8).toString('hex')}`,
    difficulty: 30,
    salt: liveScryptSalt,
    signal: controller.signal,
    progressIntervalMs: 100,
    onProgress: (p) => {
      sample = { hashes: p.tried, ms: p.elapsedMs };
      if (p.elapsedMs >= seconds * 1000) controller.abort();
    },
  });
  await running.catch(() => undefined);
  return sample;
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

const perSecond = (samples: Sample[]): number => {
  const ms = samples.reduce((sum, s) => sum + s.ms, 0);
  return ms > 0 ? (samples.reduce((sum, s) => sum + s.hashes, 0) * 1000) / ms : 0;
};

/**
 * Measures the three approaches side by side in one run, interleaved in slices of up to 2 s, so
 * load from other processes during the run weighs on all three alike.
 */
export async function runPowBench(seconds: number): Promise<PowBenchFigures> {
  const slice = Math.min(2, seconds);
  const rounds = Math.max(1, Math.round(seconds / slice));
  const solver: Sample[] = [];
  const serial: Sample[] = [];
  const js: Sample[] = [];
  for (let round = 0; round < rounds; round += 1) {
    solver.push(await sampleSolver(slice));
    serial.push(await sampleSerial(slice));
    js.push(await sampleScryptJs(slice));
  }
  return { cores: availableParallelism(), seconds: slice * rounds, solver: perSecond(solver), serialNative: perSecond(serial), scryptJs: perSecond(js) };
}

/** The printed report: rates, and how the solver compares with a serial native loop and with scrypt-js. */
export function formatPowBench(f: PowBenchFigures): string {
  const rate = (n: number): string => `${n.toFixed(1).padStart(6)} hashes/s`;
  const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
  const row = (label: string, value: string): string => `  ${label.padEnd(50)} ${value}`;
  return [
    `scrypt N=${scryptParams.N} r=${scryptParams.r} p=${scryptParams.p} dkLen=${scryptParams.dkLen}; ${f.cores} cores; ${f.seconds} s per approach, interleaved`,
    row(`solver (${f.cores} worker threads, shared counter)`, rate(f.solver)),
    row('serial native loop (one crypto.scrypt at a time)', rate(f.serialNative)),
    row('scrypt-js (pure JS, one thread)', rate(f.scryptJs)),
    row('solver ÷ serial native', ratio(f.solver, f.serialNative)),
    row('solver ÷ (cores × serial native)', `${ratio(f.solver, f.cores * f.serialNative)}  (1.00× = every core busy)`),
    row('serial native ÷ scrypt-js', ratio(f.serialNative, f.scryptJs)),
    row('solver ÷ scrypt-js', ratio(f.solver, f.scryptJs)),
  ].join('\n');
}

/** The proof-of-work section of `npm run bench`. */
export const powBenchSection: BenchSection = {
  title: 'Proof of work',
  run: async ({ seconds }) => formatPowBench(await runPowBench(seconds)),
};
