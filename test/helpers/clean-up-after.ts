import { afterAll, onTestFinished } from 'vitest';

/**
 * Runs `cleanUp` when the current test ends (called inside a test) or after the calling test file
 * (called at its top level). Helpers call this per resource, never at their own module level:
 * with `isolate: false` a helper module is evaluated once per worker, so a hook registered there
 * would belong to whichever file imported it first.
 */
export function cleanUpAfter(cleanUp: () => unknown): void {
  try {
    onTestFinished(async () => void (await cleanUp()));
  } catch {
    afterAll(async () => void (await cleanUp()));
  }
}
