import { parseArgs } from 'node:util';
import type { BenchSection } from './bench-section.js';
import { coldStartBenchSection } from './cold-start-bench.js';
import { drillBenchSection } from './drill-bench.js';
import { guardBenchSection } from './guard-bench.js';
import { hostileHeaderBenchSection } from './hostile-header-bench.js';
import { mailAuthBenchSection } from './mail-auth-bench.js';
import { runMcpOverheadBench } from './mcp-overhead-bench.js';
import { sessionBenchSection } from './session/mcp-session-bench.js';
import { powBenchSection } from './pow-bench.js';
import { receiveScreenBenchSection } from './receive-screen-bench.js';
import { tokenCostBenchSection } from './token-cost-bench.js';
import { toolListBenchSection } from './tool-list-bench.js';

/**
 * `npm run bench`: runs each section in turn and prints its report on stdout.
 * Usage: node dist/bench/run-bench.js [--seconds N] [--only <title word>] [--compare <other dist/bin.js>]...
 * (--compare: builds the cold-start and MCP session sections run beside this one, e.g. an older commit's)
 */

// What one jmap_request through the spawned stdio server costs on top of a raw
// JMAP round trip to the same sandbox.
const mcpOverheadSection: BenchSection = {
  title: 'MCP server overhead per jmap_request',
  run: async () => {
    const result = await runMcpOverheadBench({ log: (line: string) => process.stderr.write(`${line}\n`) });
    return [result.title, ...result.lines].join('\n');
  },
};

function sectionsFor(compare: readonly string[]): BenchSection[] {
  return [
    toolListBenchSection,
    powBenchSection,
    tokenCostBenchSection,
    receiveScreenBenchSection,
    hostileHeaderBenchSection,
    coldStartBenchSection(compare),
    mcpOverheadSection,
    mailAuthBenchSection,
    guardBenchSection,
    drillBenchSection,
    sessionBenchSection(compare),
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '4' },
      only: { type: 'string' },
      compare: { type: 'string', multiple: true, default: [] },
    },
  });
  const seconds = Number(values.seconds);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`--seconds must be a positive number, got ${values.seconds}`);
  const chosen = sectionsFor(values.compare).filter(
    (s) => !values.only || s.title.toLowerCase().includes(values.only.toLowerCase()),
  );
  for (const section of chosen) {
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
