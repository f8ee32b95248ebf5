import { fileURLToPath } from 'node:url';
import { startMailbox } from './start/start-mailbox.js';

// The skill's single file (and a checkout's tsc build) starts here; the package's bin starts at front.ts.
await startMailbox(process.argv.slice(2), fileURLToPath(import.meta.url));
