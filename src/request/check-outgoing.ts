import type { CheckContext, CheckOutcome, Outgoing } from '../gate/outgoing.js';
import { checkBatch } from './guard/check-batch.js';
import { checkUpload } from './guard/check-upload.js';

/**
 * The check stage: the gate (src/gate/service-gate.ts) calls it before every JMAP batch and every
 * upload that leaves the machine, every step of a multi-step preset, every look of wait_for_mail
 * and of a wake run included, and sends nothing of what it refuses. The operator's send rules are
 * enforced here (src/request/guard/): reads pass at no cost, sends are judged, mail that needs a
 * person's yes is asked for or held.
 */
export async function checkOutgoing(outgoing: Outgoing, context: CheckContext): Promise<CheckOutcome | void> {
  return outgoing.kind === 'upload' ? checkUpload(outgoing, context) : checkBatch(outgoing, context);
}
