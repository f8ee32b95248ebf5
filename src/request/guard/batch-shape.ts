import { MailboxError } from '../../errors.js';
import type { CheckContext } from '../../gate/outgoing.js';
import type { JmapRequest } from '../../jmap/jmap-types.js';
import type { DecidingRule } from '../../policy/judge-address.js';
import { ruleName } from './guard-refusal.js';
import { audit, guardScope } from './guard-scope.js';
import { forbiddenCreateProblems } from './mail/create-rules.js';
import { creationIdProblems } from './mail/creation-ids.js';

/**
 * A batch whose meaning is settled only while it runs (a creation id defined twice), or that a
 * lenient server would compose otherwise than the guard read, is refused in every mode, and audited.
 */

const rule: DecidingRule = { layer: 'default', rule: 'unjudgeable' };

export async function refuseUnjudgeableShape(request: JmapRequest, context: CheckContext): Promise<void> {
  const ids = creationIdProblems(request);
  const creates = forbiddenCreateProblems(request);
  const problems = [...ids, ...creates];
  if (problems.length === 0) return;
  const steps = [
    ...(ids.length > 0
      ? [
          'give every create of the request its own creation id, and reference only creates whose ids the request spells out',
        ]
      : []),
    ...(creates.length > 0
      ? [
          'set each header field once, as header:Name:asForm with a plain field name (or as from, to, cc, bcc, subject), never as headers',
        ]
      : []),
  ];
  const scope = await guardScope(context);
  await audit(scope, { verdict: 'refused', rule: ruleName(rule), recipients: [], note: problems.join('; ') });
  throw new MailboxError({
    code: 'policy_refused',
    message: `Not sent: this request cannot be checked against your operator's rules before it runs: ${problems.join('; ')}. This is a rule of this tool that protects your operator; nothing of this request reached the mail server.`,
    hint: `Rewrite the request: ${steps.join('; ')}. Then send it again.`,
    details: { rule, problems },
  });
}
