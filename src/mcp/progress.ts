import type { ProgressUpdate } from '../operations/define-operation.js';

/**
 * Hosts reset their ~60 s idle timer on each progress notification: at most one per `minIntervalMs`,
 * at least one per `heartbeatMs` (the last again, nudged forward: `progress` must increase).
 */

export interface ProgressNotice {
  progressToken: string | number;
  progress: number;
  total?: number;
  message: string;
}

const noopReporter = { report(_update: ProgressUpdate): void {}, stop(): void {} };

export function createProgressReporter(options: {
  /** The request's `_meta.progressToken`; without one nothing is ever sent. */
  progressToken: string | number | undefined;
  send: (notice: ProgressNotice) => Promise<void>;
  minIntervalMs?: number;
  heartbeatMs?: number;
  now?: () => number;
}): typeof noopReporter {
  const { progressToken, send } = options;
  if (progressToken === undefined) return noopReporter;
  const minIntervalMs = options.minIntervalMs ?? 1_000;
  const heartbeatMs = options.heartbeatMs ?? 2_000;
  const now = options.now ?? Date.now;

  let latest: ProgressUpdate | undefined;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let lastProgress = Number.NEGATIVE_INFINITY;
  let pending: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let stopped = false;

  const emit = (): void => {
    if (stopped || !latest) return;
    if (pending) clearTimeout(pending);
    pending = undefined;
    // Strictly increasing even when the core repeats itself or a heartbeat fires.
    const progress = latest.progress > lastProgress ? latest.progress : lastProgress + 0.001;
    lastProgress = progress;
    lastSentAt = now();
    // A proof of work can run past its mean; a total below progress would read as >100 %.
    const total = latest.total !== undefined && latest.total > progress ? latest.total : undefined;
    send({ progressToken, progress, ...(total !== undefined ? { total } : {}), message: latest.message }).catch(() => {
      // The connection may be closing; progress is best effort and must never fail the call.
    });
    if (heartbeat) clearTimeout(heartbeat);
    heartbeat = setTimeout(emit, heartbeatMs);
    heartbeat.unref();
  };

  return {
    report(update) {
      if (stopped) return;
      latest = update;
      const wait = lastSentAt + minIntervalMs - now();
      if (wait <= 0) emit();
      else if (!pending) {
        pending = setTimeout(emit, wait);
        pending.unref();
      }
    },
    stop() {
      stopped = true;
      if (pending) clearTimeout(pending);
      if (heartbeat) clearTimeout(heartbeat);
    },
  };
}
