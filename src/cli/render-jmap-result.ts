import { fenceJmapResult } from '../jmap/fence-untrusted.js';
import { exitCodes, type CliStreams } from './render.js';

/**
 * jmap_request on the CLI: the one-line summary on stderr, the result as JSON on stdout with
 * mail content fenced (a shell agent reads stdout too), and exit 1 when any call or record failed.
 */
export function renderJmapResultForCli(streams: CliStreams, result: unknown): number {
  const record = (result ?? {}) as { ok?: boolean; summary?: string };
  if (record.summary) streams.stderr.write(`${record.summary}\n`);
  streams.stdout.write(`${JSON.stringify(fenceJmapResult(result), null, 2)}\n`);
  return record.ok === false ? exitCodes.failure : exitCodes.ok;
}
