import { describe, expect, it } from 'vitest';
import { nextDailyRun, watchMarker } from '../../../src/watch/watch-marker.js';

describe('watch marker and schedule', () => {
  it('gives each credentials directory its own stable marker (live-service bug 8)', () => {
    expect(watchMarker('/a/one')).toMatch(/^agent-mailbox-watch:[0-9a-f]{16}$/);
    expect(watchMarker('/a/one')).toBe(watchMarker('/a/one/'));
    expect(watchMarker('/a/one')).not.toBe(watchMarker('/a/two'));
  });

  it('finds the next 09:00 local time: later today before nine, tomorrow after', () => {
    const morning = new Date(2026, 10, 22, 8, 30);
    expect(nextDailyRun(morning)).toEqual(new Date(2026, 10, 22, 9, 0));
    const nine = new Date(2026, 10, 22, 9, 0);
    expect(nextDailyRun(nine)).toEqual(new Date(2026, 10, 23, 9, 0));
    const evening = new Date(2026, 10, 22, 18, 0);
    expect(nextDailyRun(evening)).toEqual(new Date(2026, 10, 23, 9, 0));
  });
});
