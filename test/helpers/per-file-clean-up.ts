import { afterAll } from 'vitest';
import { runOwedCleanUps } from './clean-up-after.js';

// A setup file: vitest evaluates it before every test file, even with `isolate: false`, so this
// hook belongs to each file in turn. Registered before the file's own hooks, it runs after them.
afterAll(runOwedCleanUps);
