import cron from 'node-cron';
import { MailboxError } from '../errors.js';
import type { Logger } from '../log.js';
import { dailySchedule } from './watch-marker.js';

interface WatchDaemonOptions {
  /** Job name, one per inbox (live-service bug 8). */
  name: string;
  /** Fires one wake; errors are logged and the daemon keeps going. */
  fire: () => Promise<void>;
  /** Aborting it stops the daemon (SIGTERM/SIGINT at the CLI). */
  signal: AbortSignal;
  log: Logger;
  /** Production is `0 9 * * *`; tests pass a near-future expression. */
  schedule?: string;
  timezone?: string;
  onReady?: (nextRun: Date | null) => void;
}

/** Where there is no crontab: fires on the schedule while this process lives (no catch-up); resolves when stopped. */
export async function runWatchDaemon(options: WatchDaemonOptions): Promise<{ fired: number; failed: number }> {
  const expression = options.schedule ?? dailySchedule;
  if (!cron.validate(expression))
    throw new MailboxError({
      code: 'usage',
      message: `"${expression}" is not a valid cron expression.`,
      hint: `Use five or six fields, e.g. "${dailySchedule}".`,
    });
  const { log } = options;
  let fired = 0;
  let failed = 0;
  let inFlight: Promise<void> | undefined;
  const task = cron.schedule(
    expression,
    async () => {
      fired += 1;
      inFlight = options.fire().catch((error: unknown) => {
        failed += 1;
        log.error(`watch: the wake failed: ${(error as Error).message}`);
      });
      await inFlight;
    },
    {
      name: options.name,
      // A wake still running when the next tick comes is not started twice.
      noOverlap: true,
      ...(options.timezone ? { timezone: options.timezone } : {}),
      // node-cron logs to the console by default; stdout must stay clean, so route it to our logger.
      logger: {
        info: (m) => log.debug(`node-cron: ${m}`),
        warn: (m) => log.warn(`node-cron: ${m}`),
        error: (m) => log.error(`node-cron: ${String(m)}`),
        debug: (m) => log.debug(`node-cron: ${String(m)}`),
      },
    },
  );
  options.onReady?.(task.getNextRun());
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await task.stop();
  await task.destroy();
  // A wake in progress finishes (it stops its agent itself when the signal is shared).
  await inFlight;
  return { fired, failed };
}
