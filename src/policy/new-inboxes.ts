import { MailboxError } from '../errors.js';
import { effectivePolicy } from './effective-policy.js';
import { loadPolicyLayers, policyPaths } from './policy-layers.js';

/**
 * `policy set --new-inboxes off`: the agent may not sign up for or log in to another inbox. A
 * credentials directory that already holds an inbox is no new inbox (registering it again only
 * replays); any other is refused before any proof of work runs.
 */
export async function assertNewInboxAllowed(options: { userConfigDir: string; credentialsDir: string; machinePath?: string }): Promise<void> {
  const layers = await loadPolicyLayers(policyPaths({ userConfigDir: options.userConfigDir, inboxDir: options.credentialsDir, ...(options.machinePath ? { machinePath: options.machinePath } : {}) }));
  const rule = effectivePolicy(layers).newInboxes;
  if (rule.value === 'on') return;
  throw new MailboxError({
    code: 'policy_refused',
    message: `Not registered: your operator's policy (${rule.from} layer, newInboxes=off) allows no new inbox and no login to another one here.`,
    hint: 'Use the inbox you have; ask your operator (the person you work for) if you need another.',
    details: { rule: { layer: rule.from, rule: 'newInboxes=off' } },
  });
}
