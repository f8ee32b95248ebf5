import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProgressReporter, type ProgressNotice } from '../../../src/mcp/progress.js';

describe('createProgressReporter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function recorder(): { sent: (ProgressNotice & { at: number })[]; send: (n: ProgressNotice) => Promise<void> } {
    const sent: (ProgressNotice & { at: number })[] = [];
    return { sent, send: async (n) => void sent.push({ ...n, at: Date.now() }) };
  }

  it('sends nothing at all when the request has no progress token', () => {
    const { sent, send } = recorder();
    const reporter = createProgressReporter({ progressToken: undefined, send });
    reporter.report({ progress: 1, message: 'x' });
    vi.advanceTimersByTime(10_000);
    expect(sent).toEqual([]);
  });

  it('sends the first report at once and then at most one per second', () => {
    const { sent, send } = recorder();
    const reporter = createProgressReporter({ progressToken: 't', send });
    for (let i = 1; i <= 50; i++) {
      reporter.report({ progress: i * 10, total: 1000, message: `tried ${i * 10}` });
      vi.advanceTimersByTime(100);
    }
    reporter.stop();
    expect(sent[0]).toMatchObject({ progressToken: 't', progress: 10, total: 1000, message: 'tried 10' });
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(1_000);
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(sent.at(-1)?.progress).toBe(500);
  });

  it('keeps sending a heartbeat at least every 2 s when the core goes quiet, with increasing progress', () => {
    const { sent, send } = recorder();
    const reporter = createProgressReporter({ progressToken: 7, send });
    reporter.report({ progress: 100, total: 1000, message: 'tried 100' });
    vi.advanceTimersByTime(7_000);
    reporter.stop();
    vi.advanceTimersByTime(10_000);
    expect(sent.length).toBe(4);
    for (let i = 1; i < sent.length; i++) {
      expect(sent[i]!.progress).toBeGreaterThan(sent[i - 1]!.progress);
      expect(sent[i]!.at - sent[i - 1]!.at).toBeLessThanOrEqual(2_000);
      expect(sent[i]!.message).toBe('tried 100');
    }
  });

  it('drops the total once progress passes it, so no host shows more than 100 %', () => {
    const { sent, send } = recorder();
    const reporter = createProgressReporter({ progressToken: 't', send });
    reporter.report({ progress: 1500, total: 1000, message: 'unlucky' });
    reporter.stop();
    expect(sent[0]).toEqual({ progressToken: 't', progress: 1500, message: 'unlucky', at: expect.any(Number) });
  });
});
