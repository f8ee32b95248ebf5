import { MailboxError } from '../../errors.js';
import type { CheckContext, CheckOutcome, OutgoingBatch } from '../../gate/outgoing.js';
import type { JmapRequest } from '../../jmap/jmap-types.js';
import { rememberLocalSecrets } from '../../policy/local-secrets.js';
import { checkSendSlots, reserveSendSlots, type SendCaps } from '../../policy/records/send-quota.js';
import { withAutoReplyRules } from './auto-reply-rules.js';
import { askPerson, confirmQuestion } from './ask-person.js';
import { findBatchSends, type BatchSends } from './mail/batch-sends.js';
import { checkComposedBlobs } from './mail/composed-blobs.js';
import { forbiddenCreateProblems } from './mail/create-rules.js';
import { creationIdProblems } from './mail/creation-ids.js';
import { withCreatedMail } from './mail/stamped-results.js';
import { declinedRefusal, policyRefusal, refuseWhileWaking, ruleName } from './guard-refusal.js';
import { audit, guardScope } from './guard-scope.js';
import { holdSubmissions } from './hold-batch.js';
import { isKnownRecipient } from './mail/known-recipients.js';
import { otherSendJudgements } from './mail/other-sends.js';
import { readOutgoingMail } from './mail/outgoing-mail.js';
import { recipientsOfEnvelope } from './mail/mail-recipients.js';
import { auditedSend, judgeSend, unreadableSend, type SendUnderJudgement, type Verdict } from './send-judgement.js';
import { settleSends, type GoingSend, type HeldSend } from './settle-sends.js';

/**
 * The operator's rules on one JMAP batch before it leaves: a wake keeps the inbox read-only; every send
 * is judged, and a batch with any refused part sends nothing. Judge, then ask a person, only then act
 * (caps, holding, audit): an answer comes with a rerun of the call (MCP 2026-07-28). Around every
 * batch: stored secrets learnt for the scan, composed blobs scanned, stamped results refused, written
 * mail recorded, a refused auto-reply switched off.
 */

/** The sends of a batch, each read (mail content, recipients) for judging. */
async function readSends(sends: BatchSends, context: CheckContext, accountId: string): Promise<SendUnderJudgement[]> {
  const out: SendUnderJudgement[] = [];
  for (const submission of sends.submissions) {
    const label = `the mail of submission ${submission.creationId}`;
    if (submission.source.kind === 'unreadable') {
      out.push({ ...unreadableSend(label, 'mail', submission.source.why, 1), submission });
      continue;
    }
    if (submission.accountId !== undefined && submission.accountId !== accountId) {
      const why = `it names another account (${String(submission.accountId)})`;
      out.push({ ...unreadableSend(label, 'mail', why, 1), submission });
      continue;
    }
    const mail = await readOutgoingMail(submission.source, context, sends.blobCreates);
    const recipients = recipientsOfEnvelope(submission.envelope) ?? mail.headerRecipients;
    out.push({
      kind: 'mail',
      slots: 1,
      submission,
      label: `the mail "${mail.subject}"`,
      recipients: recipients.addresses,
      unreadable: recipients.unreadable,
      scanParts: mail.scanParts,
      mail,
    });
  }
  for (const other of sends.others) out.push(...(await otherSendJudgements(other, context, sends.blobCreates)));
  return out;
}

/**
 * A batch whose meaning is settled only while it runs (a creation id defined twice), or that a lenient
 * server would compose otherwise than the guard read, is refused in every mode, and audited.
 */
async function refuseUnjudgeableShape(request: JmapRequest, context: CheckContext): Promise<void> {
  const ids = creationIdProblems(request);
  const creates = forbiddenCreateProblems(request);
  const problems = [...ids, ...creates];
  if (problems.length === 0) return;
  const steps: string[] = [];
  if (ids.length > 0)
    steps.push(
      'give every create of the request its own creation id, and reference only creates whose ids the request spells out',
    );
  if (creates.length > 0)
    steps.push(
      'set each header field once, as header:Name:asForm with a plain field name (or as from, to, cc, bcc, subject), never as headers',
    );
  const rule = { layer: 'default', rule: 'unjudgeable' } as const;
  const scope = await guardScope(context);
  await audit(scope, { verdict: 'refused', rule: ruleName(rule), recipients: [], note: problems.join('; ') });
  throw new MailboxError({
    code: 'policy_refused',
    message: `Not sent: this request cannot be checked against your operator's rules before it runs: ${problems.join('; ')}. This is a rule of this tool that protects your operator; nothing of this request reached the mail server.`,
    hint: `Rewrite the request: ${steps.join('; ')}. Then send it again.`,
    details: { rule, problems },
  });
}

function isApproved(send: SendUnderJudgement, context: CheckContext): boolean {
  const approved = context.guard.approved;
  const submission = send.submission;
  if (!approved || !submission || submission.source.kind !== 'server' || submission.source.emailId !== approved.emailId)
    return false;
  if (send.recipients === 'anyone') return false;
  const given = new Set(send.recipients.map((r) => r.address));
  return given.size === approved.rcptTo.length && approved.rcptTo.every((r) => given.has(r));
}

export async function checkBatch(outgoing: OutgoingBatch, context: CheckContext): Promise<CheckOutcome | void> {
  const config = await context.config();
  await rememberLocalSecrets({
    inUse: context.credentialsDir,
    defaultDir: config.credentialsDir,
    userConfigDir: config.userConfigDir,
  });
  await checkComposedBlobs(outgoing, context);
  const checked = await withCreatedMail(outgoing.request, context, () => checkSends(outgoing, context));
  return withAutoReplyRules(outgoing, context, checked);
}

async function checkSends(outgoing: OutgoingBatch, context: CheckContext): Promise<CheckOutcome | void> {
  const sends = findBatchSends(outgoing.request);
  if (sends.writes.length === 0) return;
  await refuseWhileWaking(context, sends.writes.join(', '));
  await refuseUnjudgeableShape(outgoing.request, context);
  if (sends.submissions.length === 0 && sends.others.length === 0 && sends.unknown.length === 0) return;
  const scope = await guardScope(context);
  const { accountId, mailboxIdsByRole } = await context.session();
  const strictMode = scope.policy.send.modes[0];
  if (sends.unknown.length > 0 && strictMode) {
    const rule = { layer: strictMode.from, rule: `send.mode=${strictMode.value}` };
    await audit(scope, { verdict: 'refused', rule: ruleName(rule), recipients: [], note: sends.unknown.join(', ') });
    throw policyRefusal(
      `${sends.unknown.join(', ')} cannot be judged by the guard, and outside "open" mode what cannot be judged does not run`,
      rule,
    );
  }
  const judged: { send: SendUnderJudgement; verdict: Verdict }[] = [];
  for (const send of await readSends(sends, context, accountId)) {
    const verdict = await judgeSend(send, {
      layers: scope.layers,
      policy: scope.policy,
      approved: isApproved(send, context),
      isKnown: (address) =>
        isKnownRecipient(address, { stateDir: scope.stateDir, authservId: scope.authservId, context }),
    });
    judged.push({ send, verdict });
  }
  for (const { send, verdict } of judged) {
    if (verdict.kind !== 'refuse') continue;
    await audit(scope, { verdict: 'refused', rule: verdict.rule, ...auditedSend(send), note: send.label });
    throw verdict.error;
  }
  const { maxSendsPerHour, maxSendsPerDay } = scope.policy.send;
  const caps: SendCaps = {
    ...(maxSendsPerHour ? { perHour: maxSendsPerHour } : {}),
    ...(maxSendsPerDay ? { perDay: maxSendsPerDay } : {}),
  };
  const slotsNeeded = judged.reduce((sum, { send }) => sum + send.slots, 0);
  try {
    await checkSendSlots(scope.stateDir, scope.ledgerKey, slotsNeeded, caps, context.guard.now);
  } catch (error) {
    await audit(scope, {
      verdict: 'refused',
      rule: 'caps',
      recipients: judged.flatMap(({ send }) =>
        send.recipients === 'anyone' ? [] : send.recipients.map((r) => r.address),
      ),
    });
    throw error;
  }

  const asking = judged.flatMap(({ send, verdict }) =>
    verdict.kind === 'confirm'
      ? [{ send, recipients: verdict.recipients, rule: ruleName(verdict.rule), deciding: verdict.rule }]
      : [],
  );
  const held: HeldSend[] = [];
  let confirmed = false;
  if (asking.length > 0) {
    const answer = await askPerson(context, confirmQuestion(asking));
    const first = asking[0]!;
    if (answer.action === 'decline' || answer.action === 'cancel') {
      for (const { send, rule } of asking)
        await audit(scope, { verdict: 'declined', rule, ...auditedSend(send), note: answer.action });
      throw declinedRefusal(
        asking.length === 1 ? first.send.label : `these ${asking.length} mails`,
        answer.action,
        first.deciding,
      );
    }
    if (answer.action === 'accept') confirmed = true;
    else {
      const why = answer.action === 'timeout' ? 'no answer in time' : 'nobody to ask';
      const unholdable = asking.find(({ send }) => !send.submission || send.submission.source.kind === 'unreadable');
      if (unholdable)
        throw policyRefusal(
          `${unholdable.send.label} needs a person's yes, and ${why === 'nobody to ask' ? 'nobody can be asked here' : 'none came in time'}`,
          unholdable.deciding,
        );
      held.push(...asking.map(({ send, rule }) => ({ send, rule, why }) as HeldSend));
    }
  }

  const heldSends = new Set(held.map((h) => h.send));
  const leaving = judged.map(({ send }) => send).filter((send) => !heldSends.has(send));
  const needed = leaving.reduce((sum, send) => sum + send.slots, 0);
  const slots = await reserveSendSlots(scope.stateDir, scope.ledgerKey, needed, caps, context.guard.now);
  const going: GoingSend[] = leaving.map((send) => ({
    send,
    slots: slots.splice(0, send.slots),
    confirmed: confirmed && asking.some((a) => a.send === send),
  }));
  const request =
    held.length > 0
      ? holdSubmissions(
          outgoing.request,
          held.map((h) => h.send.submission!),
          { accountId, draftsId: mailboxIdsByRole.drafts },
        )
      : undefined;
  return {
    ...(request ? { request } : {}),
    settle: settleSends({ scope, context, request: outgoing.request, going, held, accountId }),
  };
}
