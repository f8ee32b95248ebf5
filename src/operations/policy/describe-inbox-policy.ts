import { resolveConfig } from '../../config.js';
import { describePolicy } from '../../policy/describe-policy.js';
import { effectivePolicy } from '../../policy/effective-policy.js';
import { guardedInbox } from '../../policy/records/inbox-state-dir.js';
import { loadPolicyLayers, policyPaths } from '../../policy/policy-layers.js';
import { isInboxWaking } from '../../policy/records/wake-read-only.js';
import type { OperationContext } from '../define-operation.js';

/** The operator's rules for one inbox as the model reads them in watch_status: sentences, plus whether a wake holds it read-only now. */
export async function describeInboxPolicy(
  ctx: OperationContext,
  credentialsDir: string,
  /** A connected account's inbox as the caller already resolved it; else the directory's own inbox is read. */
  known?: { inbox: string; stateDir: string },
): Promise<{ rules: string[]; readOnlyNow: boolean }> {
  const { userConfigDir } = resolveConfig(ctx.configInputs);
  const identity =
    known ??
    (await ctx.accounts
      .open(credentialsDir)
      .inbox({ signal: ctx.signal, deadline: ctx.deadline })
      .then(guardedInbox, () => undefined));
  const inbox = identity?.inbox;
  const layers = await loadPolicyLayers(policyPaths({ userConfigDir, inboxDir: identity?.stateDir ?? credentialsDir }));
  const broken = layers.find((l) => l.error);
  const rules = broken
    ? [`Your operator's policy file ${broken.path} is broken: nothing is sent until they repair it.`]
    : describePolicy(effectivePolicy(layers));
  return { rules, readOnlyNow: inbox !== undefined && (await isInboxWaking(userConfigDir, inbox)) };
}
