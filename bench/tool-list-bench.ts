import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { BenchSection } from './bench-section.js';

/** A tool as tools/list returns it, the parts measured. */
export interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: unknown;
  outputSchema?: unknown;
}

export interface ToolListSize {
  /** The whole tools/list result as JSON: what every conversation of every host carries. */
  totalBytes: number;
  /** Names, descriptions and input schemas: what the model needs to call each tool. */
  callBytes: number;
  perTool: { name: string; descriptionBytes: number; inputBytes: number; outputBytes: number; totalBytes: number }[];
}

const bytes = (value: unknown): number =>
  Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value ?? {}));

/** The byte counts of a tools/list result (UTF-8, compact JSON as hosts send it). */
export function measureToolList(tools: readonly ListedTool[]): ToolListSize {
  const perTool = tools.map((tool) => ({
    name: tool.name,
    descriptionBytes: bytes(tool.description ?? ''),
    inputBytes: bytes(tool.inputSchema),
    outputBytes: tool.outputSchema === undefined ? 0 : bytes(tool.outputSchema),
    totalBytes: bytes(tool),
  }));
  const callBytes = tools.reduce(
    (sum, tool) => sum + bytes(tool.name) + bytes(tool.description ?? '') + bytes(tool.inputSchema),
    0,
  );
  return { totalBytes: bytes({ tools }), callBytes, perTool };
}

/** The tool list of the built server, as a host with no settings sees it. */
export async function listBuiltTools(): Promise<ListedTool[]> {
  const home = await mkdtemp(join(tmpdir(), 'agent-mailbox-tool-list-'));
  const client = new Client({ name: 'agent-mailbox-tool-list-bench', version: '0' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fileURLToPath(new URL('../bin.js', import.meta.url)), 'mcp'],
        env: { PATH: process.env.PATH ?? '', HOME: home },
        stderr: 'ignore',
      }),
    );
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await rm(home, { recursive: true, force: true });
  }
}

export const toolListBenchSection: BenchSection = {
  title: 'Tool list size (tools/list, in every conversation)',
  run: async () => {
    const size = measureToolList(await listBuiltTools());
    return [
      `tools/list in all: ${size.totalBytes} bytes (≈${Math.round(size.totalBytes / 4)} tokens); names + descriptions + input schemas: ${size.callBytes} bytes`,
      ...size.perTool.map(
        (t) =>
          `  ${t.name.padEnd(14)} description ${String(t.descriptionBytes).padStart(5)}  input ${String(t.inputBytes).padStart(5)}  output ${String(t.outputBytes).padStart(5)}  all ${String(t.totalBytes).padStart(5)}`,
      ),
    ].join('\n');
  },
};
