import { isReadOnlyMethod, type Check, type CheckContext, type CheckOutcome, type Outgoing } from '../gate/outgoing.js';
import type { GateContext } from '../gate/service-gate.js';
import { withAutoReplyRules } from './guard/auto-reply-rules.js';
import { checkUpload } from './guard/check-upload.js';

/**
 * The check stage: the gate calls it before every batch and upload that leaves the machine, and sends
 * nothing it refuses. The send guard (guard/, with its mail parser) loads only when a batch writes;
 * the auto-reply rules every read applies and the small upload check come with this module.
 */
export async function checkOutgoing(outgoing: Outgoing, context: CheckContext): Promise<CheckOutcome | void> {
  if (outgoing.kind === 'upload') return checkUpload(outgoing, context);
  // A read is the inbox's use too: an auto-reply the rules now refuse is switched off on it.
  // Stryker disable next-line ConditionalExpression,ArrowFunction: a batch of reads through the whole check (which finds no write in it) ends the same; this branch only spares its cost
  if (outgoing.request.methodCalls.every(([method]) => isReadOnlyMethod(method)))
    return withAutoReplyRules(outgoing, context, undefined);
  return (await import('./guard/check-batch.js')).checkBatch(outgoing, context);
}

/** A gate's context as the request layer's callers give it: a check only where a test records what passes. */
export type RequestGateContext = Omit<GateContext, 'check'> & { check?: Check };

/** The caller's check (a test's recorder), else the check stage above. */
export function withCheckStage(context: RequestGateContext): GateContext {
  return { ...context, check: context.check ?? checkOutgoing };
}
