import { fenceUntrusted } from './fence-untrusted.js';
import type { JmapResponse } from '../jmap/jmap-types.js';

/** Raw ops compactly: one line per method response, nulls left out, each mail record fenced on its own. */
export function presentRawResponse(response: JmapResponse, marker: string): string[] {
  const lines: string[] = [];
  for (const [name, args, callId] of response.methodResponses) {
    if (/^(Email|SearchSnippet|Thread)\//.test(name) && Array.isArray(args.list)) {
      const { list, ...rest } = args;
      lines.push(
        `${name} (${callId}): ${JSON.stringify(withoutNulls(rest))}, ${list.length} record${list.length === 1 ? '' : 's'}:`,
      );
      for (const item of list) lines.push(fenceUntrusted(JSON.stringify(withoutNulls(item)), marker));
    } else {
      lines.push(`${name} (${callId}): ${JSON.stringify(withoutNulls(args))}`);
    }
  }
  return lines;
}

/** JMAP /set answers carry a null for every absent member; they say nothing to a reader. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) if (child !== null) out[key] = withoutNulls(child);
  return out;
}
