import { presentJmapResult } from '../jmap/present-jmap-result.js';
import type { JmapRequestResult } from '../jmap/run-jmap-request.js';
import { redactSecrets } from '../redact.js';
import { describeNextForCli, exitCodes, type CliStreams } from './render.js';

/**
 * jmap_request on the CLI: by default the compact presentation an agent reads (mail content
 * fenced), with --json the exact result as one compact JSON line for programs; exit 1 when any
 * call or record failed.
 */
export function renderJmapResultForCli(streams: CliStreams, result: unknown, options: { json?: boolean } = {}): number {
  const record = (result ?? {}) as { ok?: boolean; summary?: string };
  if (options.json) {
    if (record.summary) streams.stderr.write(`${record.summary}\n`);
    streams.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    const presented = presentJmapResult(result as JmapRequestResult, 'cli', { describeNext: describeNextForCli });
    streams.stdout.write(`${redactSecrets(presented.text)}\n`);
  }
  return record.ok === false ? exitCodes.failure : exitCodes.ok;
}
