import { setTimeout as delay } from 'node:timers/promises';

/**
 * Calls `probe` until it returns a value other than undefined, or throws after `timeoutMs`.
 * Used to wait for a condition (a port answering, a process gone), never as a fixed sleep.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`, { cause: lastError });
    }
    await delay(intervalMs);
  }
}
