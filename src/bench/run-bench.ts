import { parseArgs } from 'node:util';
import type { BenchSection } from './bench-section.js';
import { coldStartBenchSection } from './cold-start-bench.js';
import { powBenchSection } from './pow-bench.js';
import { tokenCostBenchSection } from './token-cost-bench.js';

/**
 * `npm run bench`: runs each section in turn and prints its report on stdout.
 * Usage: node dist/bench/run-bench.js [--seconds N] [--only <title word>]
 *
 * Sections other helpers own are loaded only if their module is in this build, so the runner
 * never fails to compile or start because one of them is missing or unfinished.
 */
interface OptionalSection {
  path: string;
  /** Adapts whatever the module exports to a section, or undefined when it exports nothing usable. */
  adapt(module: Record<string, unknown>): BenchSection | undefined;
}

const optionalSections: OptionalSection[] = [
  {
    // Issue 4: the MCP server's overhead per jmap_request over a raw JMAP round trip.
    path: './mcp-overhead-bench.js',
    adapt(module) {
      const run = module['runMcpOverheadBench'];
      if (typeof run !== 'function') return undefined;
      return {
        title: 'MCP server overhead per jmap_request',
        run: async () => {
          const result = (await run({ log: (line: string) => process.stderr.write(`${line}\n`) })) as { title?: string; lines?: string[] };
          return [result.title, ...(result.lines ?? [])].filter(Boolean).join('\n');
        },
      };
    },
  },
];

async function loadSections(): Promise<BenchSection[]> {
  const sections: BenchSection[] = [powBenchSection, tokenCostBenchSection, coldStartBenchSection];
  for (const optional of optionalSections) {
    let module: Record<string, unknown>;
    try {
      module = (await import(new URL(optional.path, import.meta.url).href)) as Record<string, unknown>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
      throw error;
    }
    const section = optional.adapt(module);
    if (section) sections.push(section);
  }
  return sections;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '4' }, only: { type: 'string' } } });
  const seconds = Number(values.seconds);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`--seconds must be a positive number, got ${values.seconds}`);
  const sections = (await loadSections()).filter((s) => !values.only || s.title.toLowerCase().includes(values.only.toLowerCase()));
  for (const section of sections) {
    process.stdout.write(`\n== ${section.title} ==\n`);
    try {
      process.stdout.write(`${await section.run({ seconds })}\n`);
    } catch (error) {
      process.stdout.write(`failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}

await main();
