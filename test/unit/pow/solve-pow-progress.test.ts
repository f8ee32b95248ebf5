import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PowProgress } from '../../../src/pow/pow-progress.js';
import { solvePow, type SolvePowInput } from '../../../src/pow/solve-pow.js';
import { scriptedRuntime } from './scripted-pow-workers.js';

/**
 * The progress a caller sees while the search runs (the CLI's progress line, the MCP progress
 * notifications): how often, that it only moves forward, and that it stops with the search. The
 * interval timer is vitest's fake one; the workers are scripted (scripted-pow-workers.ts).
 */

const search: SolvePowInput = { challenge: 'c', difficulty: 20, salt: 's', engine: 'node-crypto', workers: 2 };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('proof-of-work progress', () => {
  it.each([
    { asked: undefined, every: 250 },
    { asked: 100, every: 100 },
    { asked: 20, every: 20 },
    { asked: 5, every: 20 },
    { asked: 500, every: 500 },
    { asked: 10_000, every: 500 },
  ])('comes every $every ms when asked for every $asked ms (kept within 20–500 ms)', async ({ asked, every }) => {
    const reports: PowProgress[] = [];
    const controller = new AbortController();
    const running = solvePow(
      { ...search, signal: controller.signal, progressIntervalMs: asked, onProgress: (p) => reports.push(p) },
      scriptedRuntime(),
    );
    vi.advanceTimersByTime(4 * every - 1);
    expect(reports).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(reports).toHaveLength(4);
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'pow_cancelled' });
  });

  it('never goes backwards or past certain, ends at the answer’s count of hashes, then stops', async () => {
    const reports: PowProgress[] = [];
    const runtime = scriptedRuntime();
    const running = solvePow(
      { ...search, difficulty: 3, progressIntervalMs: 100, onProgress: (p) => reports.push(p) },
      runtime,
    );
    const [first, second] = runtime.workers;
    for (let tick = 0; tick < 40; tick += 1) {
      first!.hashed(tick % 3);
      if (tick % 4 === 0) second!.hashed(4);
      vi.advanceTimersByTime(100);
    }
    second!.solved(37);
    first!.finish();
    second!.finish();
    const solution = await running;
    expect(reports.length).toBe(41);
    for (let i = 1; i < reports.length; i += 1) {
      expect(reports[i]!.tried).toBeGreaterThanOrEqual(reports[i - 1]!.tried);
      expect(reports[i]!.chanceByNow).toBeGreaterThanOrEqual(reports[i - 1]!.chanceByNow);
    }
    for (const report of reports) {
      expect(report.chanceByNow).toBeGreaterThanOrEqual(0);
      expect(report.chanceByNow).toBeLessThanOrEqual(1);
      expect(report.expected).toBe(8);
    }
    expect(reports.at(-1)!.tried).toBe(solution.tried);
    expect(solution.tried).toBe(39 + 40);

    vi.advanceTimersByTime(5_000);
    expect(reports.length, 'no report after the answer').toBe(41);
  });

  it('stops with the search when a worker crashes', async () => {
    const reports: PowProgress[] = [];
    const runtime = scriptedRuntime();
    const running = solvePow({ ...search, progressIntervalMs: 100, onProgress: (p) => reports.push(p) }, runtime);
    vi.advanceTimersByTime(250);
    runtime.workers[1]!.crash(new Error('boom'));
    await expect(running).rejects.toMatchObject({ code: 'internal' });
    vi.advanceTimersByTime(5_000);
    expect(reports).toHaveLength(2);
  });

  it('is heard no more once cancelled, even from a report already on its way', async () => {
    const reports: PowProgress[] = [];
    const controller = new AbortController();
    const runtime = scriptedRuntime();
    const running = solvePow(
      { ...search, signal: controller.signal, progressIntervalMs: 100, onProgress: (p) => reports.push(p) },
      runtime,
    );
    vi.advanceTimersByTime(300);
    controller.abort();
    // Messages the workers posted before they were terminated are still delivered.
    runtime.workers[0]!.solved(12);
    for (const worker of runtime.workers) worker.finish();
    await expect(running).rejects.toMatchObject({ code: 'pow_cancelled' });
    vi.advanceTimersByTime(5_000);
    expect(reports).toHaveLength(3);
  });
});
