import { EventEmitter } from 'node:events';
import { romixKernel } from '../../../src/pow/romix-kernel.js';
import type { PowRuntime } from '../../../src/pow/solve-pow.js';
import type { PowWorker, PowWorkerData, PowWorkerMessage } from '../../../src/pow/start-pow-worker.js';

/**
 * Stand-ins for the solver's worker threads, driven by the test: each reports the solutions, stops,
 * crashes or exits when told, in the order the test chooses, which real scrypt workers racing on
 * two cores cannot be made to do. They share the real cells (hashes tried, stop flag) with the solver.
 */
export class ScriptedWorker extends EventEmitter implements PowWorker {
  terminated = 0;
  private exited = false;

  constructor(readonly data: PowWorkerData) {
    super();
  }

  /** The shared cells: 0 next nonce, 1 smallest solution, 2 hashes tried, 3 stop flag. */
  get cells(): Int32Array {
    return new Int32Array(this.data.shared);
  }

  hashed(count: number): void {
    Atomics.add(this.cells, 2, count);
  }

  solved(nonce: number, powHex = powHexOf(nonce)): void {
    this.post({ nonce, powHex });
  }

  /** Reports that it stopped taking nonces, then ends as a worker thread does, with code 0. */
  finish(): void {
    this.post({ done: true });
    this.end(0);
  }

  crash(error: Error): void {
    this.emit('error', error);
    this.end(1);
  }

  exit(code: number): void {
    this.end(code);
  }

  terminate(): Promise<number> {
    this.terminated += 1;
    // A terminated thread ends with code 1, after the call returns, as node:worker_threads' Worker does.
    queueMicrotask(() => this.end(1));
    return Promise.resolve(1);
  }

  /** 'exit' is a worker's last event, emitted once however many times it is terminated. */
  private end(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.emit('exit', code);
  }

  private post(message: PowWorkerMessage): void {
    this.emit('message', message);
  }
}

/** A digest that reads as belonging to `nonce`, so a test can tell which report an answer came from. */
export function powHexOf(nonce: number): string {
  return nonce.toString(16).padStart(128, '0');
}

/** A runtime whose workers are ScriptedWorkers, listed in start order in `workers`. */
export function scriptedRuntime(options: { simd?: boolean } = {}): PowRuntime & { workers: ScriptedWorker[] } {
  const workers: ScriptedWorker[] = [];
  return {
    workers,
    startWorker: (data) => {
      const worker = new ScriptedWorker(data);
      workers.push(worker);
      return worker;
    },
    simdKernel: options.simd === false ? () => undefined : romixKernel,
  };
}
