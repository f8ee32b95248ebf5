import type { Account } from '../auth/account-registry.js';
import { openServiceGate } from '../gate/service-gate.js';
import { waitForMail } from '../mail/wait-for-mail.js';
import type { JmapRequestContext, JmapRequestInput, JmapRequestResult } from './jmap-request-types.js';
import { assessRequest } from './assess-request.js';
import { withCheckStage } from './check-outgoing.js';
import { planRequest } from './plan-request.js';
import { presentRequest } from './present-request.js';
import { sendRequest } from './send-request.js';
import { settleRequest } from './settle-request.js';
import { withHeldMail } from './guard/held-result.js';

export type {
  CreatedRecord,
  JmapRequestContext,
  JmapRequestInput,
  JmapRequestResult,
  JmapStepResult,
} from './jmap-request-types.js';

/**
 * Runs jmap_request, a preset or ops, as named stages: plan → check → send → screen → settle →
 * present. The check stage (check-outgoing.ts) and the screen stage (src/screen/) sit in the gate,
 * which every batch and upload of the call passes on its way out and every answer on its way
 * back, so no stage can send around the one or read around the other.
 */
export async function runJmapRequest(
  account: Account,
  input: JmapRequestInput,
  ctx: JmapRequestContext,
): Promise<JmapRequestResult> {
  const gate = openServiceGate(
    account,
    withCheckStage({ ...ctx, ...(input.include_held ? { includeHeld: true } : {}) }),
  );
  const plan = await planRequest(account, input, gate);
  if (plan.waitsForMail) return assessRequest(await waitForMail(plan, gate, { ...ctx, account }), plan, gate);
  const sent = await sendRequest(plan, gate);
  const next = await settleRequest(account, plan, sent, gate);
  return withHeldMail(await assessRequest(presentRequest(plan, sent, next), plan, gate), gate.notices);
}
