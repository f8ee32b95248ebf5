import type { GuardNotice } from '../../gate/outgoing.js';
import type { JmapRequestResult } from '../jmap-request-types.js';

/** A result that held mail says so first: not sent, awaiting the operator, to be told, not resent another way. */
export function withHeldMail(result: JmapRequestResult, notices: readonly GuardNotice[]): JmapRequestResult {
  const held = notices.filter((n) => n.kind === 'held');
  if (held.length === 0) return result;
  const lines = held.map(
    (n) =>
      `"${n.subject}" to ${n.recipients.join(', ')} is held as a draft (${n.emailId}) and was NOT sent: your operator's policy (${n.rule}) needs a person's yes, and ${n.why === 'nobody to ask' ? 'nobody could be asked here' : 'no answer came in time'}. It awaits the operator (outbox id ${n.outboxId}).`,
  );
  return {
    ...result,
    summary: `HELD: ${lines.join(' ')} ${result.summary}`,
    awaitingApproval: held.map(({ kind: _kind, why: _why, ...entry }) => entry),
    next: [
      'Tell the person you work for that the mail awaits their approval (outbox id above); do not send it again another way.',
    ],
  };
}
