import type { Account } from '../auth/account-registry.js';
import { openServiceGate } from '../gate/service-gate.js';
import type { JmapRequestContext, JmapRequestInput, JmapRequestResult } from './jmap-request-types.js';
import { assessRequest } from './assess-request.js';
import { withCheckStage } from './check-outgoing.js';
import { planRequest } from './plan-request.js';
import { presentRequest } from './present-request.js';
import { sendRequest } from './send-request.js';
import { settleRequest } from './settle-request.js';
import { withHeldMail } from './guard/held-result.js';

export type { JmapRequestContext, JmapRequestInput, JmapRequestResult } from './jmap-request-types.js';

/**
 * Runs jmap_request as stages, each taking the previous one's result: plan → check → send (or wait) →
 * screen → settle → present (and assess). The check and the screen sit in the gate: none goes around them.
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
  // A waiting preset's wait stage stands where the send stage stands, and returns what it returns.
  const sent = plan.waitsForMail
    ? await (await import('./wait-for-mail.js')).waitForMail(plan, gate, { ...ctx, account })
    : await sendRequest(plan, gate);
  const settled = await settleRequest(account, plan, sent, gate);
  return withHeldMail(await assessRequest(presentRequest(plan, sent, settled), plan, gate), gate.notices);
}
