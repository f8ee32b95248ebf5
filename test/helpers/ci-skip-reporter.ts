import type { Reporter, TestModule } from 'vitest/node';

/**
 * Under CI the machine has cron and Cyrus installed (.ci/run), so a skipped test means a suite
 * silently stopped running. With CI=true this reporter lists every skipped test and fails the run.
 */
export default class CiSkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (process.env.CI !== 'true') return;
    const skipped: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) skipped.push(`${module.moduleId}: ${test.fullName}`);
    }
    if (skipped.length === 0) return;
    process.stderr.write(
      `\nCI=true but ${skipped.length} test(s) were skipped; every prerequisite must be installed in CI:\n${skipped.map((s) => `  - ${s}`).join('\n')}\n`,
    );
    process.exitCode = 1;
  }
}
