import { z } from 'zod';
import { MailboxError } from '../../errors.js';
import { askOperator } from '../../policy/operator-terminal.js';
import type { PolicyChange } from '../../policy/policy-change.js';
import { updatePolicyLayer } from '../../policy/policy-store.js';
import type { OperationContext } from '../define-operation.js';
import { policyTarget } from './policy-target.js';

/**
 * Applies a change to the target layer. A change that widens what the agent may do is shown to the
 * operator, who must type yes at a terminal (checked under the file's lock, so nothing slips in
 * between); without a terminal it changes nothing and fails with operator_required (exit 3).
 * A change that only narrows needs nobody.
 */

export const policyChangeOutput = z.looseObject({
  layer: z.enum(['user', 'inbox']),
  path: z.string(),
  changed: z.boolean(),
  widens: z.array(z.string()),
  summary: z.string(),
});

export async function runPolicyChange(ctx: OperationContext, input: { user?: boolean | undefined; credentials_dir?: string | undefined }, change: PolicyChange, what: string): Promise<z.infer<typeof policyChangeOutput>> {
  const target = await policyTarget(ctx, input);
  const update = await updatePolicyLayer(target.path, change, async (widens) => {
    await askOperator(ctx.terminal, what, [`This widens what the agent may do (${target.layer} layer, ${target.path}):`, ...widens.map((w) => `  - ${w}`)]);
    return true;
  });
  const summary = update.changed ? `Changed the ${target.layer} layer (${target.path})${update.widens.length > 0 ? `; widened: ${update.widens.join(', ')}` : ''}.` : `Nothing to change in the ${target.layer} layer (${target.path}).`;
  return { layer: target.layer, path: target.path, changed: update.changed, widens: update.widens, summary };
}

/** Refuses entries that are no address or domain (exit 2), naming each. */
export function refuseInvalidEntries(invalid: readonly string[]): void {
  if (invalid.length === 0) return;
  throw new MailboxError({
    code: 'invalid_input',
    message: `Not an address or a domain: ${invalid.map((e) => JSON.stringify(e)).join(', ')}; nothing was changed.`,
    hint: 'Give addresses (ana@example.org) or domains (example.org, which covers its subdomains).',
  });
}
