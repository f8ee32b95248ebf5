import { MailboxError } from '../../errors.js';
import type { CheckContext, GuardNotice, SettleAnswer } from '../../gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../jmap/jmap-types.js';
import { recordHeld } from '../../policy/records/outbox-store.js';
import type { SendSlot } from '../../policy/records/send-quota.js';
import { audit, type GuardScope } from './guard-scope.js';
import { heldEmailId } from './hold-batch.js';
import { auditedSend, recipientsOf, type SendUnderJudgement } from './send-judgement.js';
import { isRecord } from '../../is-record.js';

/** After a checked batch ran: each send audited, a certainly refused one's caps slot given back, held mail recorded and told. */

export interface GoingSend {
  send: SendUnderJudgement;
  slots: SendSlot[];
  /** The person in the host said yes to it. */
  confirmed: boolean;
}

export interface HeldSend {
  send: SendUnderJudgement;
  rule: string;
  why: GuardNotice['why'];
}

/** A failure after which the service certainly did nothing: it answered and refused the request itself. */
function certainlyNotDone(error: unknown): boolean {
  if (!(error instanceof MailboxError)) return false;
  if (error.code === 'rate_limited') return true;
  return error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 408;
}

/** How one submission fared in the response: created, refused (with why), or no answer for it. */
function submissionOutcome(
  going: GoingSend,
  request: JmapRequest,
  response: JmapResponse,
): { state: 'sent'; id?: string } | { state: 'refused'; why: string } {
  const submission = going.send.submission;
  if (!submission) return { state: 'sent' };
  const callId = request.methodCalls[submission.callIndex]?.[2];
  const answer = response.methodResponses.find(([, , id]) => id === callId);
  if (!answer) return { state: 'refused', why: 'the server did not run the submission' };
  if (answer[0] === 'error') return { state: 'refused', why: `server: ${String(answer[1].type ?? 'error')}` };
  const created = isRecord(answer[1].created) ? answer[1].created[submission.creationId] : undefined;
  if (isRecord(created)) return { state: 'sent', ...(typeof created.id === 'string' ? { id: created.id } : {}) };
  const refused = isRecord(answer[1].notCreated) ? answer[1].notCreated[submission.creationId] : undefined;
  return { state: 'refused', why: `server: ${isRecord(refused) ? String(refused.type ?? 'refused') : 'not created'}` };
}

export function settleSends(options: {
  scope: GuardScope;
  context: CheckContext;
  request: JmapRequest;
  going: GoingSend[];
  held: HeldSend[];
  accountId: string;
}) {
  const { scope, context, request, going, held } = options;
  return async (answer: SettleAnswer): Promise<JmapResponse | void> => {
    if (answer.kind === 'upload') return;
    if (answer.kind === 'failed') {
      const released = certainlyNotDone(answer.error);
      for (const { send, slots } of going) {
        if (released) await Promise.all(slots.map((slot) => slot.release()));
        await audit(scope, {
          verdict: released ? 'refused' : 'sent',
          rule: released ? 'server: the request was refused' : undefined,
          ...auditedSend(send),
          note: released ? 'nothing was sent' : 'the service gave no answer: the mail may have been sent (check Sent)',
        });
      }
      return;
    }
    const { response } = answer;
    for (const item of going) {
      const outcome = submissionOutcome(item, request, response);
      if (outcome.state === 'refused') await Promise.all(item.slots.map((slot) => slot.release()));
      await audit(scope, {
        verdict: outcome.state === 'sent' && context.guard.approved ? 'approved' : outcome.state,
        ...(outcome.state === 'refused' ? { rule: outcome.why } : {}),
        ...auditedSend(item.send),
        ...(outcome.state === 'sent' && outcome.id ? { ids: { submission: outcome.id } } : {}),
        note: `${item.send.label}${item.confirmed ? '; a person confirmed it in the host' : ''}`,
      });
    }
    for (const { send, rule, why } of held) {
      const submission = send.submission;
      const emailId = submission ? heldEmailId(submission, request, response) : undefined;
      const recipients = recipientsOf(send);
      const subject = send.mail?.subject ?? '';
      const audited = { rule, recipients, subject };
      if (!submission || !emailId) {
        await audit(scope, { verdict: 'refused', ...audited, note: 'to be held, but the mail was not created' });
        continue;
      }
      const record = await recordHeld(scope.stateDir, {
        inbox: scope.inbox,
        emailId,
        ...(submission.identityId ? { identityId: submission.identityId } : {}),
        mailFrom: scope.inbox,
        rcptTo: recipients,
        subject,
        reason: rule,
      });
      await audit(scope, { verdict: 'held', ...audited, ids: { email: emailId, outbox: record.id }, note: why });
      context.notify({ kind: 'held', outboxId: record.id, emailId, recipients, subject, rule, why });
    }
  };
}
