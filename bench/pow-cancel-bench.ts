import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { solvePow } from '../src/pow/solve-pow.js';
import { liveScryptSalt } from '../src/wire-constants.js';

export interface CancelFigures {
  /** Worst over the runs: from abort() to the solver's rejection. */
  rejectMs: number;
  /** Worst over the runs: from abort() until the workers' threads have exited (NaN without /proc). */
  threadsGoneMs: number;
}

/** Threads of this process, from Linux's /proc; undefined elsewhere. */
function threadCount(): number | undefined {
  try {
    return readdirSync('/proc/self/task').length;
  } catch {
    return undefined;
  }
}

/** One solve on every core, aborted ~`afterMs` into steady hashing: how long until it has stopped. */
async function cancelOnce(afterMs: number): Promise<CancelFigures> {
  const controller = new AbortController();
  const workers = availableParallelism();
  let running: Promise<unknown> | undefined;
  const aborted = new Promise<{ at: number; threads: number | undefined }>((resolve) => {
    running = solvePow({
      challenge: `bench-cancel-${afterMs}`,
      difficulty: 30,
      salt: liveScryptSalt,
      workers,
      signal: controller.signal,
      progressIntervalMs: 50,
      onProgress: (p) => {
        if (p.elapsedMs < afterMs || controller.signal.aborted) return;
        const threads = threadCount();
        const at = performance.now();
        controller.abort();
        resolve({ at, threads });
      },
    }).catch(() => undefined);
  });
  const { at, threads } = await aborted;
  await running;
  const rejectMs = performance.now() - at;
  if (threads === undefined) return { rejectMs, threadsGoneMs: Number.NaN };
  // Polling is the measurement here: nothing signals a worker thread's exit to the process.
  while ((threadCount() ?? 0) > threads - workers && performance.now() - at < 5000) await sleep(1);
  return { rejectMs, threadsGoneMs: performance.now() - at };
}

/** Cancels three solves at different points of a pass and keeps the worst figures. */
export async function measureSolverCancel(): Promise<CancelFigures> {
  const runs: CancelFigures[] = [];
  for (const afterMs of [700, 1030, 1260]) runs.push(await cancelOnce(afterMs));
  return {
    rejectMs: Math.max(...runs.map((r) => r.rejectMs)),
    threadsGoneMs: Math.max(...runs.map((r) => r.threadsGoneMs)),
  };
}
