import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { runWatchDaemon } from '../../../src/watch/watch-daemon.js';

describe('runWatchDaemon', () => {
  it('fires on its schedule and stops when its signal aborts', async () => {
    const stop = new AbortController();
    let fired = 0;
    let nextRun: Date | null = null;
    const outcome = await runWatchDaemon({
      name: 'agent-mailbox-watch:test',
      schedule: '* * * * * *',
      signal: stop.signal,
      log: silentLogger,
      onReady: (next) => (nextRun = next),
      fire: async () => {
        fired += 1;
        if (fired === 2) stop.abort();
      },
    });
    expect(outcome.fired).toBeGreaterThanOrEqual(2);
    expect(nextRun).toBeInstanceOf(Date);
  });

  it('keeps running after a failed wake', async () => {
    const stop = new AbortController();
    let calls = 0;
    const outcome = await runWatchDaemon({
      name: 'agent-mailbox-watch:test2',
      schedule: '* * * * * *',
      signal: stop.signal,
      log: silentLogger,
      fire: async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
        stop.abort();
      },
    });
    expect(outcome).toMatchObject({ failed: 1 });
    expect(outcome.fired).toBeGreaterThanOrEqual(2);
  });

  it('rejects an invalid cron expression as a usage error', async () => {
    await expect(runWatchDaemon({ name: 'x', schedule: 'every day', signal: new AbortController().signal, log: silentLogger, fire: async () => {} })).rejects.toMatchObject({ code: 'usage' });
  });
});
