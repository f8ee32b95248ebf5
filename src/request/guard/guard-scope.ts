import { authservIdOf } from '../../config.js';
import type { CheckContext } from '../../gate/outgoing.js';
import { appendAudit, type AuditEntry } from '../../policy/records/audit-log.js';
import { effectivePolicy } from '../../policy/effective-policy.js';
import { inboxKey } from '../../policy/records/inbox-state-dir.js';
import { assertUsable, loadPolicyLayers, policyPaths } from '../../policy/policy-layers.js';

/** Who a check acts for and under which rules: the inbox, its state folder (rules and records), the layers in force. */
export type GuardScope = Awaited<ReturnType<typeof guardScope>>;

/** The inbox, its folders and the layers as the check sees them; a broken policy file throws (fail closed). */
export async function guardScope(context: CheckContext) {
  const [config, { inbox, stateDir }] = await Promise.all([context.config(), context.inbox()]);
  const layers = await loadPolicyLayers(
    policyPaths({
      userConfigDir: config.userConfigDir,
      inboxDir: stateDir,
      ...(context.guard.machinePolicyPath ? { machinePath: context.guard.machinePolicyPath } : {}),
    }),
  );
  assertUsable(layers);
  const door: AuditEntry['door'] = context.isWake ? 'wake' : context.guard.approved ? 'operator' : context.frontDoor;
  return {
    inbox,
    stateDir,
    ledgerKey: inboxKey(inbox),
    userConfigDir: config.userConfigDir,
    // The service's authserv-id (RFC 8601), for the `known` mode's authentication check.
    authservId: authservIdOf(config),
    layers,
    policy: effectivePolicy(layers),
    door,
  };
}

export function audit(
  scope: GuardScope,
  entry: Omit<AuditEntry, 'at' | 'door' | 'inbox'>,
  now: Date = new Date(),
): Promise<void> {
  return appendAudit(scope.stateDir, { at: now.toISOString(), door: scope.door, inbox: scope.inbox, ...entry });
}
