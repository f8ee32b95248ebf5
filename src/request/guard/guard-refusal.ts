import { MailboxError } from '../../errors.js';
import type { CheckContext } from '../../gate/outgoing.js';
import type { DecidingRule } from '../../policy/judge-address.js';
import { isInboxWaking } from '../../policy/records/wake-read-only.js';

/** The guard's refusals: what was not sent, which rule stopped it, the operator to ask; never a command that loosens a rule. */

/** A rule in the words the audit log and the refusal use, e.g. `user: send.mode=allowlist`. */
export function ruleName(rule: DecidingRule): string {
  return `${rule.layer}: ${rule.rule}${rule.entry ? ` (${rule.entry})` : ''}`;
}

export function policyRefusal(reason: string, rule: DecidingRule, details: Record<string, unknown> = {}): MailboxError {
  const source =
    rule.layer === 'default'
      ? 'a rule of this tool that protects your operator'
      : `a rule your operator set (${rule.layer} policy, ${rule.rule}${rule.entry ? `, entry ${rule.entry}` : ''})`;
  return new MailboxError({
    code: 'policy_refused',
    message: `Not sent: ${reason}. This is ${source}; nothing of this request reached the mail server.`,
    hint: 'Ask your operator (the person you work for) whether this should go out; only they can change their rules.',
    details: { rule, ...details },
  });
}

/** The person in the host said no (or dismissed the question). */
export function declinedRefusal(label: string, answer: 'decline' | 'cancel', rule: DecidingRule): MailboxError {
  return new MailboxError({
    code: 'policy_refused',
    message: `Not sent: the person you work for ${answer === 'decline' ? 'declined' : 'did not confirm'} ${label} when asked; nothing was sent.`,
    hint:
      answer === 'decline'
        ? 'Do not send it again unless they ask you to.'
        : 'Ask them in the conversation whether it should go, then try again if they say so.',
    details: { rule, answer },
  });
}

/** While a wake runs for this inbox, nothing may change it, from either door; the wake's own run only reads. */
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
