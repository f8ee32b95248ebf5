import type { PowEngine } from './solve-pow.js';

const MiB = 1024 * 1024;

/**
 * Memory one solver worker adds to the process, rounded up from `npm run bench` (README,
 * Benchmarks): the kernel's four 16 MiB V arrays or scrypt's one, plus the worker's isolate.
 */
export const workerMemoryBytes: Readonly<Record<PowEngine, number>> = { 'wasm-simd': 96 * MiB, 'node-crypto': 32 * MiB };

/** One worker per core, as long as they all fit in half of the free memory (at least one). */
export function defaultWorkerCount(cores: number, freeBytes: number, engine: PowEngine): number {
  return Math.max(1, Math.min(cores, Math.floor(freeBytes / 2 / workerMemoryBytes[engine])));
}
