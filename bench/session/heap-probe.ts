import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a server's memory holds, told apart from how big V8 has let its heap grow. VmRSS alone mixes
 * the two: between full collections the old space fills with garbage of finished calls, and RSS
 * swings by tens of MiB with the moment a collection last ran. The probe is preloaded into each
 * server (`node --expose-gc --require <probe>`, any build alike, nothing in the server's code): on
 * SIGUSR2 it notes the heap, runs a full collection, and appends both to a file, so the live heap
 * (heapUsed after the collection) stands next to RSS.
 */

const probeSource = `'use strict';
const { appendFileSync } = require('node:fs');
const out = process.env.AGENT_MAILBOX_BENCH_HEAP_PROBE;
if (out)
  process.on('SIGUSR2', () => {
    const before = process.memoryUsage();
    if (typeof globalThis.gc === 'function') globalThis.gc();
    const after = process.memoryUsage();
    appendFileSync(out, JSON.stringify({ heapTotal: before.heapTotal, heapUsed: before.heapUsed, liveHeap: after.heapUsed, external: after.external }) + '\\n');
  });
`;

export interface HeapSample {
  /** V8's heap as sized before the collection, bytes. */
  heapTotal: number;
  heapUsed: number;
  /** heapUsed right after a full collection: what the server retains. */
  liveHeap: number;
  external: number;
}

export interface HeapProbe {
  /** Node options that load the probe. */
  nodeArgs: string[];
  /** Environment entry telling one server where to write. */
  envFor(name: string): Record<string, string>;
  /** Signals the server and waits for its sample (undefined if none came within the time). */
  sample(pid: number, name: string): Promise<HeapSample | undefined>;
}

export async function installHeapProbe(dir: string): Promise<HeapProbe> {
  const script = join(dir, 'heap-probe.cjs');
  await writeFile(script, probeSource);
  const fileOf = (name: string): string => join(dir, `heap-${name}.jsonl`);
  const lineCount = async (file: string): Promise<string[]> =>
    (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return {
    nodeArgs: ['--expose-gc', '--require', script],
    envFor: (name) => ({ AGENT_MAILBOX_BENCH_HEAP_PROBE: fileOf(name) }),
    async sample(pid, name) {
      const file = fileOf(name);
      const seen = (await lineCount(file)).length;
      process.kill(pid, 'SIGUSR2');
      for (let waited = 0; waited < 10_000; waited += 20) {
        await sleep(20);
        const lines = await lineCount(file);
        if (lines.length > seen) return JSON.parse(lines.at(-1) as string) as HeapSample;
      }
      return undefined;
    },
  };
}
