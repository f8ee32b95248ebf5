import { z } from 'zod';
import { fenceJmapResult } from '../jmap/fence-untrusted.js';
import type { Presentation } from '../render/present-result.js';

// A JMAP request result (src/jmap/run-jmap-request.ts): leads with its summary, fails on ok:false.
const jmapResultShape = z.looseObject({
  ok: z.boolean(),
  summary: z.string(),
  next: z.array(z.string()).optional(),
});

/**
 * jmap_request's presentation in both doors: the summary first, mail content fenced with a fresh
 * marker per call, and a failure when any call or record failed (method errors arrive inside HTTP
 * 200, RFC 8620 §3.6.2, so only the result can tell).
 */
export function presentJmapResult(result: unknown): Presentation {
  const parsed = jmapResultShape.safeParse(result);
  if (!parsed.success) return { lead: [] };
  const fenced = fenceJmapResult(parsed.data) as Record<string, unknown>;
  const lead = [parsed.data.summary];
  if (typeof fenced.untrustedNotice === 'string') lead.push(fenced.untrustedNotice);
  if (parsed.data.ok) return { lead, structured: fenced };
  const hint = parsed.data.next?.length
    ? parsed.data.next.join(' ')
    : 'Fix the failed calls listed in "failures" and send again; help topic "jmap" explains each error type.';
  return { lead: [...lead, `Next: ${hint}`], structured: fenced, isError: true };
}
