import { config } from 'zod';

/**
 * zod 4 compiles a parser for each object schema with `new Function` on its first parse. A CLI
 * process parses each schema once or twice and exits, so it never earns that back: without it
 * `jmap_request list_inbox` starts ~20 ms sooner (docs/benchmarks.md, cold start). The setting is read when a
 * schema is built, so this module must run before any module that defines one (bin.ts awaits it).
 */
config({ jitless: true });
