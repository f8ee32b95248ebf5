import type { CheckContext, Outgoing } from '../gate/outgoing.js';

/**
 * The check stage: the gate (src/gate/service-gate.ts) calls it before every JMAP batch and every
 * upload that leaves the machine, every step of a multi-step preset, every look of wait_for_mail
 * and of a wake run included, and sends nothing of what it refuses. It is where the operator's
 * rules are enforced; there are none yet, so everything passes.
 */
export async function checkOutgoing(_outgoing: Outgoing, _context: CheckContext): Promise<void> {}
