import * as z from 'zod';
import type { PolicyChange } from '../../policy/policy-change.js';
import { credentialsKindOf } from '../../credentials/credentials-kind.js';
import { gateContext, type OperationContext } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';
import { policyTarget } from './policy-target.js';
import type { AutoReplyNow } from '../../request/auto-reply-now.js';

/** A widening change needs the operator's yes at a terminal, asked under the file's lock; narrowing needs nobody. */

export const policyChangeOutput = () =>
  z.looseObject({
    layer: z.enum(['user', 'inbox']),
    path: z.string(),
    changed: z.boolean(),
    widens: z.array(z.string()),
    summary: z.string(),
  });

export async function runPolicyChange(
  ctx: OperationContext,
  input: { user?: boolean | undefined; credentials_dir?: string | undefined; inbox?: string | undefined },
  change: PolicyChange,
  what: string,
): Promise<z.infer<ReturnType<typeof policyChangeOutput>>> {
  const { updatePolicyLayer, askOperator, tightensAutoReplies, applyAutoReplyRulesNow } = await loadHandlers();
  const target = await policyTarget(ctx, input);
  const update = await updatePolicyLayer(target.path, change, async (widens) => {
    await askOperator(ctx.terminal, what, [
      `This widens what the agent may do (${target.layer} layer, ${target.path}):`,
      ...widens.map((w) => `  - ${w}`),
    ]);
    return true;
  });
  const summary = update.changed
    ? `Changed the ${target.layer} layer (${target.path})${update.widens.length > 0 ? `; widened: ${update.widens.join(', ')}` : ''}.`
    : `Nothing to change in the ${target.layer} layer (${target.path}).`;
  // The inbox's own rule reaches its auto-reply now; a user rule does on each inbox's next use.
  const dir = target.credentialsDir;
  const reachesAutoReply =
    update.changed &&
    dir !== undefined &&
    credentialsKindOf(dir) !== 'none' &&
    tightensAutoReplies(update.before, update.after);
  const autoReply = reachesAutoReply
    ? autoReplyLine(await applyAutoReplyRulesNow(ctx.accounts.open(dir, { inbox: input.inbox }), gateContext(ctx)))
    : undefined;
  return {
    layer: target.layer,
    path: target.path,
    changed: update.changed,
    widens: update.widens,
    summary: autoReply ? `${summary} ${autoReply}` : summary,
  };
}

function autoReplyLine(result: AutoReplyNow): string | undefined {
  if (result.kind === 'switched off')
    return "Switched off the inbox's auto-reply (vacation response): the new rules refuse it.";
  if (result.kind === 'owed')
    return `The inbox's auto-reply could not be checked or switched off now (${result.why}); if the new rules refuse it, the tool switches it off at the inbox's next use.`;
  return undefined;
}
