import { createRequire } from 'node:module';
import { powWorkerSource } from './pow-worker-source.js';

/** What one search worker is given (read by powWorkerSource as workerData). */
export interface PowWorkerData {
  challenge: string;
  difficulty: number;
  salt: string;
  /** The Int32 cells shared by every worker of a search (see powWorkerSource). */
  shared: SharedArrayBuffer;
  /** The compiled ROMix kernel, or undefined for node:crypto's scrypt. */
  kernel: WebAssembly.Module | undefined;
}

/** What a search worker posts: a solving nonce with its digest, or that it has stopped taking nonces. */
export type PowWorkerMessage = { nonce: number; powHex: string } | { done: true };

/** The part of a worker thread the solver uses; node:worker_threads' Worker is one. */
export interface PowWorker {
  on(event: 'message', listener: (message: PowWorkerMessage) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  terminate(): Promise<number>;
}

export type StartPowWorker = (data: PowWorkerData) => PowWorker;

// Required on the first search, not imported: every other command's start would load node's worker modules.
const workerThreads = (): typeof import('node:worker_threads') =>
  createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');

export const startPowWorker: StartPowWorker = (workerData) =>
  // execArgv: [] so a parent started with --input-type=module does not turn the CommonJS source into ESM.
  // Stryker disable next-line ArrayDeclaration: any list given stops the parent's flags being inherited; a non-flag entry is ignored
  new (workerThreads().Worker)(powWorkerSource, { eval: true, execArgv: [], workerData });
