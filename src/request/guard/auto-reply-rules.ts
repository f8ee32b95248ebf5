import { createHash } from 'node:crypto';
import type { CheckContext, CheckOutcome, OutgoingBatch, SettleAnswer } from '../../gate/outgoing.js';
import type { JmapResponse } from '../../jmap/jmap-types.js';
import { readAutoReplyState, writeAutoReplyState } from '../../policy/records/auto-reply-state.js';
import { guardScope, type GuardScope } from './guard-scope.js';
import { isRecord } from '../../is-record.js';

/**
 * A tightening of the send rules reaches the auto-reply (RFC 8621 §8), which the service sends with no
 * batch to judge. On each use of the inbox, reads included, when the rules changed or a switch-off is
 * owed, the guard reads the vacation response and, if the rules would refuse it now, prepends
 * `VacationResponse/set isEnabled:false` to the batch (a narrowing, so a wake's too), its answer
 * hidden. A failed look or switch-off stays owed for the next use; the batch goes on either way.
 */

const vacationCapability = 'urn:ietf:params:jmap:vacationresponse';
const using = ['urn:ietf:params:jmap:core', vacationCapability];
const callIdBase = 'agent-mailbox-auto-reply-off';

function rulesDigest(scope: GuardScope): string {
  // Stryker disable next-line MethodExpression: the digest is only compared with one made the same way; any fixed length does
  return createHash('sha256').update(JSON.stringify(scope.policy.send)).digest('hex').slice(0, 32);
}

// The send guard's judgement loads only when an auto-reply is on and the rules changed, not with every read.
const refusedNow = async (vacation: Readonly<Record<string, unknown>>, scope: GuardScope): Promise<boolean> =>
  (await import('./mail/other-sends.js')).refusesAutoReply(vacation, scope);

function stripCall(response: JmapResponse, callId: string): JmapResponse {
  return { ...response, methodResponses: response.methodResponses.filter(([, , id]) => id !== callId) };
}

function switchedOff(response: JmapResponse, callId: string): boolean {
  const answer = response.methodResponses.find(([, , id]) => id === callId);
  return answer?.[0] === 'VacationResponse/set' && isRecord(answer[1].updated) && 'singleton' in answer[1].updated;
}

type VacationLook = { kind: 'read'; vacation: Readonly<Record<string, unknown>> | undefined } | { kind: 'failed' };

/**
 * Reads the inbox's vacation response. A failed request (Cyrus 3.6 crashes on it for an account with no
 * vacation script: HTTP 502, test/cyrus/DIFFERENCES.md row 41) or a method error is a failed look, not "none".
 */
async function lookAtVacation(context: CheckContext, accountId: string): Promise<VacationLook> {
  let answer: JmapResponse;
  try {
    answer = await context.read({ using, methodCalls: [['VacationResponse/get', { accountId, ids: null }, 'v']] });
  } catch {
    return { kind: 'failed' };
  }
  const got = answer.methodResponses.find(([, , id]) => id === 'v');
  if (got?.[0] !== 'VacationResponse/get' || !Array.isArray(got[1].list)) return { kind: 'failed' };
  const first: unknown = got[1].list[0];
  return { kind: 'read', vacation: isRecord(first) ? first : undefined };
}

/** Adds the switch-off when owed to what the rest of the check decided (`outcome`, none for reads). */
export async function withAutoReplyRules(
  outgoing: OutgoingBatch,
  context: CheckContext,
  outcome: CheckOutcome | void,
): Promise<CheckOutcome | void> {
  let scope: GuardScope;
  try {
    scope = await guardScope(context);
  } catch {
    // Broken rules stop every send already, and the batch that writes says why; a read goes on.
    return outcome;
  }
  const digest = rulesDigest(scope);
  const state = await readAutoReplyState(scope.stateDir);
  const kept = state.switchedOffAt ? { switchedOffAt: state.switchedOffAt } : {};
  if (state.checked === digest && !state.pending) return outcome;
  const opensToAnyone = !scope.policy.send.modes[0] && !scope.policy.send.block[0];
  const session = await context.session();
  const needsLook =
    !(opensToAnyone && !state.pending) && (session.accountCapabilities ?? []).includes(vacationCapability);
  const looked = needsLook ? await lookAtVacation(context, session.accountId) : undefined;
  // A service that cannot answer this must not stop every use of the inbox: the look stays owed.
  if (looked?.kind === 'failed') return outcome;
  const vacation = looked?.vacation;
  if (!vacation || vacation.isEnabled !== true || !(await refusedNow(vacation, scope))) {
    await writeAutoReplyState(scope.stateDir, { ...kept, checked: digest });
    return outcome;
  }
  await writeAutoReplyState(scope.stateDir, { ...kept, checked: digest, pending: true });
  const request = outcome?.request ?? outgoing.request;
  const taken = new Set(request.methodCalls.map(([, , id]) => id));
  let callId = callIdBase;
  for (let n = 2; taken.has(callId); n += 1) callId = `${callIdBase}-${n}`;
  return {
    request: {
      ...request,
      using: [...new Set([...request.using, ...using])],
      methodCalls: [
        ['VacationResponse/set', { accountId: session.accountId, update: { singleton: { isEnabled: false } } }, callId],
        ...request.methodCalls,
      ],
    },
    settle: async (settled: SettleAnswer) => {
      if (settled.kind === 'batch' && switchedOff(settled.response, callId))
        await writeAutoReplyState(scope.stateDir, {
          checked: digest,
          switchedOffAt: new Date(context.guard.now?.() ?? Date.now()).toISOString(),
        });
      const seen = await outcome?.settle?.(settled);
      if (settled.kind !== 'batch') return seen;
      return stripCall(seen ?? settled.response, callId);
    },
  };
}
