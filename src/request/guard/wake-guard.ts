import { MailboxError } from '../../errors.js';
import type { CheckContext } from '../../gate/outgoing.js';
import { isInboxWaking } from '../../policy/records/wake-read-only.js';

/**
 * While a wake runs an agent for this inbox, nothing may change it: no /set, no submission, no
 * import, no upload, from either door and any credentials directory of the inbox. The wake's own
 * run only reads, and is held to that too.
 */
export async function refuseWhileWaking(context: CheckContext, what: string): Promise<void> {
  if (!context.isWake) {
    const [config, { inbox }] = await Promise.all([context.config(), context.inbox()]);
    if (!(await isInboxWaking(config.userConfigDir, inbox))) return;
  }
  throw new MailboxError({
    code: 'policy_refused',
    message: `Not done: a scheduled wake is running for this inbox, and while it runs the inbox is read-only (${what} would change it). Nothing was sent.`,
    hint: "Read and report what you find; your operator acts on it after the wake. This is a rule of the operator's watch, not something to work around.",
    details: { rule: { layer: 'default', rule: 'wake.readOnly' } },
  });
}
