import { config } from 'zod';

/**
 * zod 4 compiles a parser per object schema on its first parse, which a CLI process never earns back
 * (~20 ms of a start, docs/benchmarks.md). Read when a schema is built: this runs first (start-mailbox.ts).
 */
config({ jitless: true });
