import type { JmapResponse } from '../jmap/jmap-types.js';
import type { JmapRequestResult } from '../request/run-jmap-request.js';

/** A record one /set call created, with a submission's status (RFC 8621 §7). */
interface Created {
  creationId: string;
  id: string;
  undoStatus?: string;
  sendAt?: string;
}

/**
 * What the call created, in words: a message submitted in the same request is sent (or queued),
 * whatever its creation id ("draft" in the presets); only held mail is called a draft. Other
 * records keep their creation id, which names them in the caller's own ops.
 */
export function createdLines(result: JmapRequestResult, responses: readonly JmapResponse[]): string[] {
  const held = new Set((result.awaitingApproval ?? []).map((a) => a.emailId));
  const lines: string[] = [];
  const others: string[] = [];
  for (const response of responses) {
    const submissions = response.methodResponses
      .filter(([name]) => name === 'EmailSubmission/set')
      .flatMap(([, args]) => recordsOf(args));
    const submitted: Created[] = [];
    for (const [method, args] of response.methodResponses) {
      if (method === 'EmailSubmission/set' || !(method.endsWith('/set') || method === 'Blob/upload')) continue;
      for (const record of recordsOf(args)) {
        const isEmail = method === 'Email/set';
        if (isEmail && held.has(record.id))
          lines.push(`Held as a draft, not sent: message ${record.id} (it awaits your operator).`);
        else if (isEmail && submissions.length > 0) submitted.push(record);
        else others.push(`${method.split('/')[0]} ${record.id} (${record.creationId})`);
      }
    }
    if (submissions.length > 0) lines.push(submissionLine(submitted, submissions));
  }
  if (others.length > 0) lines.push(`Created: ${others.join(', ')}.`);
  return lines;
}

/** The records a /set (or Blob/upload) answer created, with a submission's status. */
export function recordsOf(args: Record<string, unknown>): Created[] {
  const created = args.created;
  if (!created || typeof created !== 'object') return [];
  return Object.entries(created as Record<string, unknown>).flatMap(([creationId, record]) => {
    if (!record || typeof record !== 'object') return [];
    const { id, undoStatus, sendAt } = record as Record<string, unknown>;
    if (typeof id !== 'string') return [];
    return [
      {
        creationId,
        id,
        ...(typeof undoStatus === 'string' ? { undoStatus } : {}),
        ...(typeof sendAt === 'string' ? { sendAt } : {}),
      },
    ];
  });
}

/** "final" is sent, "pending" may still be cancelled before its sendAt, "canceled" was not sent. */
function submissionLine(emails: readonly Created[], submissions: readonly Created[]): string {
  const messages = emails.length > 0 ? `message ${emails.map((e) => e.id).join(', ')} ` : '';
  const ids = `submission ${submissions.map((s) => s.id).join(', ')}`;
  if (submissions.every((s) => s.undoStatus === 'canceled')) return `Not sent (cancelled): ${messages}(${ids}).`;
  const pending = submissions.filter((s) => s.undoStatus === 'pending');
  if (pending.length === 0) return `Sent: ${messages}(${ids}).`;
  const when = pending.flatMap((s) => (s.sendAt ? [s.sendAt] : []));
  return `Queued for sending: ${messages}(${ids}${when.length > 0 ? `, sendAt ${when.join(', ')}` : ''}; it can still be cancelled).`;
}
