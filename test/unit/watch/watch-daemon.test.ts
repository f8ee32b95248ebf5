import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { runWatchDaemon } from '../../../src/watch/watch-daemon.js';

// node-cron schedules with setTimeout and reads Date: a fake clock moves it through whole days in
// milliseconds, with the production schedule (09:00) instead of a test-only every-second one.
const fakeClock = (iso: string): void => {
  vi.useFakeTimers({
    now: new Date(iso),
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
};

afterEach(() => {
  vi.useRealTimers();
});

describe('runWatchDaemon', () => {
  it('fires at 09:00 each day, not before, and stops when its signal aborts', async () => {
    fakeClock('2026-11-24T08:58:30Z');
    const stop = new AbortController();
    const firedAt: string[] = [];
    let nextRun: Date | null = null;
    const outcome = runWatchDaemon({
      name: 'agent-mailbox-watch:test',
      timezone: 'Etc/UTC',
      signal: stop.signal,
      log: silentLogger,
      onReady: (next) => (nextRun = next),
      fire: async () => {
        firedAt.push(new Date().toISOString());
      },
    });
    expect(nextRun).toEqual(new Date('2026-11-24T09:00:00Z'));
    await vi.advanceTimersByTimeAsync(89_000); // 08:59:59
    expect(firedAt).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(firedAt).toHaveLength(1);
    expect(firedAt[0]).toMatch(/^2026-11-24T09:00:0/);
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    expect(firedAt).toHaveLength(2);
    expect(firedAt[1]).toMatch(/^2026-11-25T09:00:0/);
    stop.abort();
    expect(await outcome).toEqual({ fired: 2, failed: 0 });
    // Stopped means stopped: another day passes without a wake.
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    expect(firedAt).toHaveLength(2);
  });

  it('keeps running after a failed wake', async () => {
    fakeClock('2026-11-24T08:59:50Z');
    const stop = new AbortController();
    let calls = 0;
    const outcome = runWatchDaemon({
      name: 'agent-mailbox-watch:test2',
      timezone: 'Etc/UTC',
      signal: stop.signal,
      log: silentLogger,
      fire: async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
      },
    });
    await vi.advanceTimersByTimeAsync(2 * 24 * 60 * 60 * 1000);
    stop.abort();
    expect(await outcome).toEqual({ fired: 2, failed: 1 });
  });

  it('rejects an invalid cron expression as a usage error', async () => {
    await expect(
      runWatchDaemon({
        name: 'x',
        schedule: 'every day',
        signal: new AbortController().signal,
        log: silentLogger,
        fire: async () => {},
      }),
    ).rejects.toMatchObject({ code: 'usage' });
  });
});
