import { availableParallelism, freemem } from 'node:os';
import { MailboxError, settingRef } from '../errors.js';
import { computePowDigest } from './pow-digest.js';
import { powProgressAt, type PowProgress } from './pow-progress.js';
import { defaultWorkerCount } from './default-worker-count.js';
import { romixKernel } from './romix-kernel.js';
import { startPowWorker, type PowWorker, type StartPowWorker } from './start-pow-worker.js';

/** What hashes: the SIMD kernel (several nonces a pass) or node:crypto's scrypt (one at a time). */
export type PowEngine = 'wasm-simd' | 'node-crypto';

const MiB = 1024 * 1024;

/** Memory one worker adds (its V arrays and isolate), rounded up from `npm run bench`. */
export const workerMemoryBytes: Readonly<Record<PowEngine, number>> = {
  'wasm-simd': 96 * MiB,
  'node-crypto': 32 * MiB,
};

export interface SolvePowInput {
  /** The challenge JWT's `jti` (spec §2.5). */
  challenge: string;
  difficulty: number;
  /** Its UTF-8 bytes are the salt (§4.3). */
  salt: string;
  signal?: AbortSignal;
  onProgress?: (progress: PowProgress) => void;
  /** Default: one per core, fewer if free memory is short. */
  workers?: number;
  /** Default: 'wasm-simd' where WebAssembly SIMD runs. */
  engine?: PowEngine;
  /** At most 500 ms. */
  progressIntervalMs?: number;
}

interface PowSolution {
  /** The smallest solving nonce, in decimal. */
  nonce: string;
  powHex: string;
  tried: number;
  elapsedMs: number;
  engine: PowEngine;
}

// Beyond 2^31 nonces the shared Int32 counter would wrap; at ~200 hashes/s that is over four months.
const maxDifficulty = 30;

const cancelledError = (cause: unknown): MailboxError =>
  new MailboxError({
    code: 'pow_cancelled',
    message: 'The proof of work was cancelled before a solution was found.',
    hint: 'Nothing was stored; run the same call again when ready.',
    cause,
  });

/** What the search runs on: tests pass workers that crash, exit early or report out of order, or no SIMD. */
export interface PowRuntime {
  startWorker: StartPowWorker;
  /** The compiled SIMD kernel, undefined where WebAssembly SIMD does not run. */
  simdKernel: () => WebAssembly.Module | undefined;
}

const nodeRuntime: PowRuntime = { startWorker: startPowWorker, simdKernel: romixKernel };

/** Finds the smallest nonce whose scrypt digest has `difficulty` leading zero bits (spec §4.3). */
export async function solvePow(input: SolvePowInput, runtime: PowRuntime = nodeRuntime): Promise<PowSolution> {
  const { challenge, difficulty, salt, signal } = input;
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > maxDifficulty)
    throw new MailboxError({
      code: 'bad_response',
      message: `The auth host asked for a proof of work of difficulty ${difficulty}, outside 0–${maxDifficulty}.`,
      hint: `Check that ${settingRef('authUrl')} points at the Agent Mailbox auth host; retry later if it does.`,
    });
  if (signal?.aborted) throw cancelledError(signal.reason);
  const started = performance.now();
  if (difficulty === 0) {
    // Nonce 0 always satisfies difficulty 0: one hash in process, no worker start-up cost.
    const digest = await computePowDigest(challenge, 0, salt);
    if (signal?.aborted) throw cancelledError(signal.reason);
    return {
      nonce: '0',
      powHex: digest.toString('hex'),
      tried: 1,
      elapsedMs: performance.now() - started,
      engine: 'node-crypto',
    };
  }
  return solveInWorkers(input, started, runtime);
}

function solveInWorkers(input: SolvePowInput, started: number, runtime: PowRuntime): Promise<PowSolution> {
  const { challenge, difficulty, salt, signal, onProgress } = input;
  const kernel = input.engine === 'node-crypto' ? undefined : runtime.simdKernel();
  if (input.engine === 'wasm-simd' && !kernel)
    return Promise.reject(internalError('this Node runs no WebAssembly SIMD'));
  const engine: PowEngine = kernel ? 'wasm-simd' : 'node-crypto';
  const count = Math.max(
    1,
    Math.floor(input.workers ?? defaultWorkerCount(availableParallelism(), freemem(), workerMemoryBytes[engine])),
  );
  const shared = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
  const cells = new Int32Array(shared);
  Atomics.store(cells, 1, 0x7fffffff);
  const interval = Math.min(500, Math.max(20, input.progressIntervalMs ?? 250));

  return new Promise<PowSolution>((resolve, reject) => {
    const workers: PowWorker[] = [];
    let best: { nonce: number; powHex: string } | undefined;
    let finished = 0;
    let settled = false;
    const elapsed = (): number => performance.now() - started;
    const progressNow = (): PowProgress => powProgressAt(Atomics.load(cells, 2), difficulty, elapsed());
    const timer = onProgress ? setInterval(() => onProgress(progressNow()), interval) : undefined;

    const settle = (outcome: { solution: PowSolution } | { error: unknown }): void => {
      if (settled) return;
      settled = true;
      Atomics.store(cells, 3, 1);
      clearInterval(timer);
      signal?.removeEventListener('abort', onAbort);
      // terminate() stops the kernel mid-pass; a native scryptSync only after its current hash.
      for (const worker of workers) void worker.terminate();
      if ('solution' in outcome) resolve(outcome.solution);
      else reject(outcome.error);
    };
    // Stryker disable next-line OptionalChaining: onAbort is only ever registered on a signal that exists
    const onAbort = (): void => settle({ error: cancelledError(signal?.reason) });
    // Not { once: true }: settle removes it on every outcome, the abort included.
    signal?.addEventListener('abort', onAbort);

    for (let i = 0; i < count; i += 1) {
      const worker = runtime.startWorker({ challenge, difficulty, salt, shared, kernel });
      workers.push(worker);
      let done = false;
      worker.on('message', (message) => {
        // A report can still arrive after a cancel; the caller has its answer and hears no more.
        if (settled) return;
        if (!('done' in message)) {
          if (!best || message.nonce < best.nonce) best = { nonce: message.nonce, powHex: message.powHex };
          return;
        }
        done = true;
        finished += 1;
        if (finished < count) return;
        if (!best) {
          settle({ error: internalError('every worker stopped without a solution') });
          return;
        }
        const progress = progressNow();
        onProgress?.(progress);
        settle({
          solution: {
            nonce: String(best.nonce),
            powHex: best.powHex,
            tried: progress.tried,
            elapsedMs: progress.elapsedMs,
            engine,
          },
        });
      });
      worker.on('error', (error) => settle({ error: internalError(error.message, error) }));
      // Messages all arrive before the exit: a worker exiting without `done` crashed, its nonces not all checked.
      worker.on('exit', (code) => {
        if (!done) settle({ error: internalError(`a worker stopped (exit code ${code}) before finishing its search`) });
      });
    }
  });
}

function internalError(what: string, cause?: unknown): MailboxError {
  return new MailboxError({
    code: 'internal',
    message: `The proof-of-work search failed: ${what}.`,
    hint: 'Run again; if it repeats, run with AGENT_MAILBOX_DEBUG=1 and report the output.',
    cause,
  });
}
