import type { Account } from '../auth/account-registry.js';
import { openServiceGate } from '../gate/service-gate.js';
import { waitForMail } from '../mail/wait-for-mail.js';
import type { JmapRequestContext, JmapRequestInput, JmapRequestResult } from './jmap-request-types.js';
import { planRequest } from './plan-request.js';
import { presentRequest } from './present-request.js';
import { sendRequest } from './send-request.js';
import { settleRequest } from './settle-request.js';
import { withHeldMail } from './guard/held-result.js';

export type { CreatedRecord, JmapRequestContext, JmapRequestInput, JmapRequestResult, JmapStepResult } from './jmap-request-types.js';

/**
 * Runs jmap_request, a preset or ops, as named stages: plan → check → send → settle → present.
 * The check stage (check-outgoing.ts) sits in the gate, which every batch and upload of the call
 * passes on its way out, so no stage can send around it.
 */
export async function runJmapRequest(account: Account, input: JmapRequestInput, ctx: JmapRequestContext): Promise<JmapRequestResult> {
  const gate = openServiceGate(account, ctx);
  const plan = await planRequest(account, input, gate);
  if (plan.waitsForMail) return waitForMail(plan, gate, { ...ctx, account });
  const sent = await sendRequest(plan, gate);
  const next = await settleRequest(account, plan, sent, gate);
  return withHeldMail(presentRequest(plan, sent, next), gate.notices);
}
