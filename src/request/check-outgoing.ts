import type { CheckContext, Outgoing } from '../gate/outgoing.js';

/**
 * The check stage: the gate (src/gate/service-gate.ts) calls it before every JMAP batch and every
 * upload that leaves the machine, every step of a multi-step preset and every look of
 * wait_for_mail included, and sends nothing of what it refuses. The operator's rules (src/policy/)
 * are enforced here; until there are rules, everything passes.
 */
export async function checkOutgoing(_outgoing: Outgoing, _context: CheckContext): Promise<void> {}
