import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runOwedCleanUps } from '../../sandbox/test/helpers/clean-up-after.js';

// A setup file: vitest evaluates it before every test file, even with `isolate: false`, so this
// hook belongs to each file in turn. Registered before the file's own hooks, it runs after them.
afterAll(runOwedCleanUps);

// Each file gets a home and a user config directory of its own, inside the run's home: what one
// user's directory holds binds every inbox of that user (the list of inbox directories, their
// `newInboxes` rules, the marks of running wakes, which refuse any register), and files in other
// workers run at the same time. Helpers that spawn with only HOME fall back to HOME/.config, so
// both move. Files of one worker run one after the other, so setting them here holds for the whole
// file; spawned processes inherit them.
const runHome = process.env.HOME;
if (runHome !== undefined && runHome.includes('agent-mailbox-test-home-')) {
  const fileHome = mkdtempSync(join(runHome, 'file-'));
  process.env.HOME = fileHome;
  process.env.XDG_CONFIG_HOME = join(fileHome, '.config');
  afterAll(() => {
    process.env.HOME = runHome;
    process.env.XDG_CONFIG_HOME = join(runHome, '.config');
    rmSync(fileHome, { recursive: true, force: true });
  });
}
