import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MailboxError } from '../../../src/errors.js';
import { solvePow, type SolvePowInput } from '../../../src/pow/solve-pow.js';
import { startPowWorker } from '../../../src/pow/start-pow-worker.js';
import { powHexOf, scriptedRuntime, type ScriptedWorker } from './scripted-pow-workers.js';

/**
 * How the solver runs its workers, with workers the test drives (scripted-pow-workers.ts): the order
 * of their reports, a crash, an early exit and a cancel happen exactly when the test says.
 */

const { vectors } = z
  .object({
    vectors: z.array(
      z.object({
        challenge: z.string(),
        difficulty: z.number(),
        nonce: z.string(),
        powHex: z.string(),
        salt: z.string(),
      }),
    ),
  })
  .parse(JSON.parse(readFileSync(new URL('../../fixtures/pow-vectors.json', import.meta.url), 'utf8')));
const alpha = vectors.find((v) => v.challenge === 'fixture-alpha')!;

const search: SolvePowInput = { challenge: 'c', difficulty: 12, salt: 's', engine: 'node-crypto' };

const permutations = <T>(items: T[]): T[][] =>
  items.length <= 1
    ? [items]
    : items.flatMap((item, i) =>
        permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
      );

async function failure(running: Promise<unknown>): Promise<MailboxError> {
  const error = await running.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MailboxError);
  return error as MailboxError;
}

function expectAllStopped(workers: ScriptedWorker[]): void {
  for (const worker of workers) expect(worker.terminated).toBeGreaterThanOrEqual(1);
  expect(Atomics.load(workers[0]!.cells, 3), 'the stop flag the workers poll').toBe(1);
}

describe('the proof-of-work search across workers', () => {
  it('answers with the smallest solving nonce whatever order the workers report in', async () => {
    const reports = [
      { worker: 0, nonce: 9 },
      { worker: 1, nonce: 4 },
      { worker: 2, nonce: 6 },
      { worker: 1, nonce: 5 },
    ];
    for (const order of permutations(reports)) {
      const runtime = scriptedRuntime();
      const running = solvePow({ ...search, workers: 3 }, runtime);
      for (const { worker, nonce } of order) runtime.workers[worker]!.solved(nonce);
      for (const worker of runtime.workers) worker.finish();
      const solution = await running;
      expect(solution, order.map((r) => r.nonce).join(' then ')).toMatchObject({ nonce: '4', powHex: powHexOf(4) });
    }
  });

  it('starts as many workers as asked, a whole number and at least one, all on the same search', async () => {
    for (const [asked, started] of [
      [3, 3],
      [2.9, 2],
      [1, 1],
      [0, 1],
      [-4, 1],
    ] as const) {
      const runtime = scriptedRuntime();
      const controller = new AbortController();
      const running = solvePow({ ...search, workers: asked, signal: controller.signal }, runtime);
      expect(runtime.workers, `workers: ${asked}`).toHaveLength(started);
      for (const { data } of runtime.workers) {
        expect(data).toMatchObject({ challenge: 'c', difficulty: 12, salt: 's', kernel: undefined });
        expect(data.shared).toBe(runtime.workers[0]!.data.shared);
      }
      controller.abort();
      await failure(running);
    }
  });

  it('starts one worker per core by default, fewer when memory is short, never none', async () => {
    const runtime = scriptedRuntime();
    const controller = new AbortController();
    const running = solvePow({ ...search, signal: controller.signal }, runtime);
    expect(runtime.workers.length).toBeGreaterThanOrEqual(1);
    expect(runtime.workers.length).toBeLessThanOrEqual(availableParallelism());
    controller.abort();
    await failure(running);
  });

  it('keeps searching when one worker finishes before the others have', async () => {
    const runtime = scriptedRuntime();
    const running = solvePow({ ...search, workers: 2 }, runtime);
    const [first, second] = runtime.workers;
    first!.finish();
    second!.solved(7);
    second!.finish();
    await expect(running).resolves.toMatchObject({ nonce: '7', powHex: powHexOf(7) });
  });

  it('ends with an error naming the crash, and stops the other workers, when a worker crashes', async () => {
    const runtime = scriptedRuntime();
    const running = solvePow({ ...search, workers: 3 }, runtime);
    runtime.workers[0]!.solved(8);
    const crash = new Error('WebAssembly.Memory(): could not allocate memory');
    runtime.workers[1]!.crash(crash);
    const error = await failure(running);
    expect(error.code).toBe('internal');
    expect(error.message).toBe('The proof-of-work search failed: WebAssembly.Memory(): could not allocate memory.');
    expect(error.hint).toMatch(/AGENT_MAILBOX_DEBUG=1/);
    expect(error.cause).toBe(crash);
    expectAllStopped(runtime.workers);
  });

  it('ends with an error, not a hang, when a worker exits before finishing its search', async () => {
    for (const code of [3, 0]) {
      const runtime = scriptedRuntime();
      const running = solvePow({ ...search, workers: 2 }, runtime);
      runtime.workers[1]!.solved(2);
      runtime.workers[0]!.exit(code);
      const error = await failure(running);
      expect(error.code).toBe('internal');
      expect(error.message).toBe(
        `The proof-of-work search failed: a worker stopped (exit code ${code}) before finishing its search.`,
      );
      expectAllStopped(runtime.workers);
    }
  });

  it('ends with a clear error when every worker stops without a solution', async () => {
    const runtime = scriptedRuntime();
    const running = solvePow({ ...search, workers: 2 }, runtime);
    for (const worker of runtime.workers) worker.finish();
    const error = await failure(running);
    expect(error).toMatchObject({
      code: 'internal',
      message: 'The proof-of-work search failed: every worker stopped without a solution.',
    });
  });

  it('stops every worker when cancelled and rejects with pow_cancelled carrying the reason', async () => {
    const runtime = scriptedRuntime();
    const controller = new AbortController();
    const running = solvePow({ ...search, workers: 3, signal: controller.signal }, runtime);
    runtime.workers[2]!.solved(40);
    const reason = new Error('the server is shutting down');
    controller.abort(reason);
    const error = await failure(running);
    expect(error).toMatchObject({
      code: 'pow_cancelled',
      message: 'The proof of work was cancelled before a solution was found.',
    });
    expect(error.hint).toMatch(/run the same call again/);
    expect(error.cause).toBe(reason);
    expectAllStopped(runtime.workers);
  });

  it('leaves no listener on the caller’s signal once it has answered, however it ended', async () => {
    const controller = new AbortController();
    const { signal } = controller;
    for (let round = 0; round < 3; round += 1) {
      const solved = scriptedRuntime();
      const solving = solvePow({ ...search, workers: 1, signal }, solved);
      expect(getEventListeners(signal, 'abort'), 'listening while it runs').toHaveLength(1);
      solved.workers[0]!.solved(round);
      solved.workers[0]!.finish();
      await solving;
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);

      const crashed = scriptedRuntime();
      const crashing = solvePow({ ...search, workers: 1, signal }, crashed);
      crashed.workers[0]!.crash(new Error('boom'));
      await failure(crashing);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    }
    const runtime = scriptedRuntime();
    const running = solvePow({ ...search, workers: 1, signal }, runtime);
    controller.abort();
    await failure(running);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('gives the time the search took, not more', async () => {
    const runtime = scriptedRuntime();
    const before = performance.now();
    const running = solvePow({ ...search, workers: 1 }, runtime);
    runtime.workers[0]!.hashed(3);
    runtime.workers[0]!.solved(2);
    runtime.workers[0]!.finish();
    const solution = await running;
    expect(solution.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(solution.elapsedMs).toBeLessThanOrEqual(performance.now() - before);
    expect(solution.tried).toBe(3);
  });

  it('answers difficulty 0 without starting a worker', async () => {
    const runtime = scriptedRuntime();
    await expect(solvePow({ ...search, difficulty: 0 }, runtime)).resolves.toMatchObject({ nonce: '0', tried: 1 });
    expect(runtime.workers).toHaveLength(0);
  });
});

describe('the proof-of-work search without WebAssembly SIMD', () => {
  it('refuses the SIMD engine by name with a clear error, starting no worker', async () => {
    const runtime = scriptedRuntime({ simd: false });
    const error = await failure(solvePow({ ...search, engine: 'wasm-simd' }, runtime));
    expect(error).toMatchObject({
      code: 'internal',
      message: 'The proof-of-work search failed: this Node runs no WebAssembly SIMD.',
    });
    expect(runtime.workers).toHaveLength(0);
  });

  it("falls back to node:crypto's scrypt by default and still finds the smallest nonce", async () => {
    // fixture-alpha's smallest nonce is 4: five hashes with one real worker.
    const solution = await solvePow(
      { challenge: alpha.challenge, difficulty: alpha.difficulty, salt: alpha.salt, workers: 1 },
      { startWorker: startPowWorker, simdKernel: () => undefined },
    );
    expect(solution).toMatchObject({
      engine: 'node-crypto',
      nonce: alpha.nonce,
      powHex: alpha.powHex,
      tried: Number(alpha.nonce) + 1,
    });
  });
});

describe('real worker threads that fail', () => {
  it('a worker thread that throws ends the search with its error', async () => {
    const error = await failure(
      solvePow(
        { ...search, workers: 1 },
        {
          startWorker: () => new Worker('throw new Error("kernel fault at pass 3")', { eval: true }),
          simdKernel: () => undefined,
        },
      ),
    );
    expect(error.message).toBe('The proof-of-work search failed: kernel fault at pass 3.');
  });

  it('a worker thread that exits mid-search ends the search with its exit code', async () => {
    const error = await failure(
      solvePow(
        { ...search, workers: 1 },
        { startWorker: () => new Worker('process.exit(7)', { eval: true }), simdKernel: () => undefined },
      ),
    );
    expect(error.message).toBe(
      'The proof-of-work search failed: a worker stopped (exit code 7) before finishing its search.',
    );
  });
});
