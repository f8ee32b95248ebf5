import { fileURLToPath } from 'node:url';
import { holdHeap, servesMcp } from './start/hold-heap.js';
import { startMailbox } from './start/start-mailbox.js';

// The skill's single file (and a checkout's tsc build) starts here; the package's bin starts at front.ts.
const argv = process.argv.slice(2);
if (servesMcp(argv)) holdHeap(await import('node:v8'), await import('node:perf_hooks'));
await startMailbox(argv, fileURLToPath(import.meta.url));
