import { authservIdOf } from '../../config.js';
import type { CheckContext } from '../../gate/outgoing.js';
import type { AuditEntry } from '../../policy/records/audit-log.js';
import { appendAudit } from '../../policy/records/audit-log.js';
import { effectivePolicy, type EffectivePolicy } from '../../policy/effective-policy.js';
import { inboxKey } from '../../policy/records/inbox-state-dir.js';
import { assertUsable, loadPolicyLayers, policyPaths, type LoadedLayer } from '../../policy/policy-layers.js';

/** Who a check acts for and under which rules: the inbox, its state folder, the layers in force. */
export interface GuardScope {
  inbox: string;
  /** The inbox's state folder (policy layer, ledger, audit, outbox). */
  stateDir: string;
  ledgerKey: string;
  userConfigDir: string;
  /** The service's authserv-id (RFC 8601), for the `known` mode's authentication check. */
  authservId: string;
  layers: LoadedLayer[];
  policy: EffectivePolicy;
  door: AuditEntry['door'];
}

/** The inbox, its folders and the layers as the check sees them; a broken policy file throws (fail closed). */
export async function guardScope(context: CheckContext): Promise<GuardScope> {
  const [config, { inbox, stateDir }] = await Promise.all([context.config(), context.inbox()]);
  const layers = await loadPolicyLayers(
    policyPaths({
      userConfigDir: config.userConfigDir,
      inboxDir: stateDir,
      ...(context.guard.machinePolicyPath ? { machinePath: context.guard.machinePolicyPath } : {}),
    }),
  );
  assertUsable(layers);
  return {
    inbox,
    stateDir,
    ledgerKey: inboxKey(inbox),
    userConfigDir: config.userConfigDir,
    authservId: authservIdOf(config),
    layers,
    policy: effectivePolicy(layers),
    door: context.isWake ? 'wake' : context.guard.approved ? 'operator' : context.frontDoor,
  };
}

export function audit(
  scope: GuardScope,
  entry: Omit<AuditEntry, 'at' | 'door' | 'inbox'>,
  now: Date = new Date(),
): Promise<void> {
  return appendAudit(scope.stateDir, { at: now.toISOString(), door: scope.door, inbox: scope.inbox, ...entry });
}
