import { onTestFinished } from 'vitest';

/**
 * Clean-ups owed by the test file now running, when they were asked for outside a test (in a
 * beforeAll hook or at the file's top level). test/helpers/per-file-clean-up.ts, a setup file that
 * vitest runs again for every file, drains them after the file. A hook registered from inside a
 * beforeAll never runs (vitest takes hooks only while it collects a file): sandboxes started in
 * beforeAll, Cyrus instances among them, used to stay up until their worker ended and left their
 * temp dirs behind.
 */
const owedByFile: Array<() => unknown> = [];

/**
 * Runs `cleanUp` when the current test ends (called inside a test) or after the current test file
 * (called in a beforeAll hook or at its top level); later resources are cleaned up first.
 */
export function cleanUpAfter(cleanUp: () => unknown): void {
  try {
    onTestFinished(async () => void (await cleanUp()));
  } catch {
    owedByFile.push(cleanUp);
  }
}

/** Runs every clean-up the finished file owes, newest first; all run even when one fails. */
export async function runOwedCleanUps(): Promise<void> {
  const failures: unknown[] = [];
  for (const cleanUp of owedByFile.splice(0).reverse()) {
    try {
      await cleanUp();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} clean-up(s) after this file failed`);
}
