import type { Account } from '../auth/account-registry.js';
import { MailboxError } from '../errors.js';
import { openServiceGate } from '../gate/service-gate.js';
import { withCheckStage, type RequestGateContext } from './check-outgoing.js';
import { appendAudit } from '../policy/records/audit-log.js';
import { guardedInbox } from '../policy/records/inbox-state-dir.js';
import { listOutbox, transitionHeld, type HeldMail } from '../policy/records/outbox-store.js';
import { isRecord } from '../is-record.js';

/**
 * The operator's decisions on held mail. An approval sends exactly the recorded draft to exactly the
 * recipients judged, once (held → sending under the outbox lock), through the guard (all but the send
 * mode apply); a send the server certainly refused goes back to held.
 */

const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission'];

/** The folder of the account's inbox holding its outbox and audit log (on a connected account, the chosen inbox's own). */
export async function heldMailDir(account: Account): Promise<string> {
  return guardedInbox(await account.inbox()).stateDir;
}

/** One held record, or invalid_input naming the outbox command that lists them. */
export async function findHeld(account: Account, id: string): Promise<HeldMail> {
  const record = (await listOutbox(await heldMailDir(account))).find((held) => held.id === id);
  if (record) return record;
  throw new MailboxError({
    code: 'invalid_input',
    message: `No held mail with the id ${id} in this inbox's outbox.`,
    hint: 'List the held mail and their ids with `outbox list`.',
  });
}

function alreadyDecided(record: HeldMail): MailboxError {
  const what =
    record.status === 'sent'
      ? `was already sent${record.submissionId ? ` (submission ${record.submissionId})` : ''}${record.decidedAt ? ` at ${record.decidedAt}` : ''}; it is not sent again`
      : record.status === 'discarded'
        ? 'was discarded; it can no longer be sent'
        : 'is being sent by another approval, or one was interrupted: look in Sent before trying anything else';
  return new MailboxError({
    code: 'invalid_input',
    message: `Held mail ${record.id} ${what}.`,
    hint: "List the outbox with `outbox list` to see each record's state.",
  });
}

export async function approveHeldMail(account: Account, id: string, context: RequestGateContext): Promise<HeldMail> {
  const stateDir = await heldMailDir(account);
  const { record, previous } = await transitionHeld(stateDir, id, ['held'], 'sending');
  if (previous !== 'held') throw alreadyDecided(record);
  const gate = openServiceGate(account, {
    ...withCheckStage(context),
    guard: { ...context.guard, approved: { outboxId: record.id, emailId: record.emailId, rcptTo: record.rcptTo } },
  });
  let response;
  try {
    const session = await gate.session();
    const { drafts, sent } = session.mailboxIdsByRole;
    const identityId = record.identityId ?? session.identityId;
    response = await gate.call({
      using,
      methodCalls: [
        [
          'EmailSubmission/set',
          {
            accountId: session.accountId,
            create: {
              approved: {
                emailId: record.emailId,
                ...(identityId ? { identityId } : {}),
                envelope: { mailFrom: { email: record.mailFrom }, rcptTo: record.rcptTo.map((email) => ({ email })) },
              },
            },
            onSuccessUpdateEmail: {
              '#approved': {
                'keywords/$draft': null,
                ...(drafts ? { [`mailboxIds/${drafts}`]: null } : {}),
                ...(sent ? { [`mailboxIds/${sent}`]: true } : {}),
              },
            },
          },
          'approve',
        ],
      ],
    });
  } catch (error) {
    // Refused before sending (the guard, a lost session) or certainly by the server: held again.
    const certain =
      error instanceof MailboxError &&
      (error.code === 'policy_refused' ||
        error.code === 'policy_unreadable' ||
        (error.status !== undefined && error.status < 500 && error.status !== 408));
    if (certain) await transitionHeld(stateDir, id, ['sending'], 'held');
    throw error;
  }
  const answer = response.methodResponses[0];
  const created =
    answer && answer[0] === 'EmailSubmission/set' && isRecord(answer[1].created)
      ? answer[1].created.approved
      : undefined;
  if (!isRecord(created)) {
    await transitionHeld(stateDir, id, ['sending'], 'held');
    const refused = answer && isRecord(answer[1].notCreated) ? answer[1].notCreated.approved : answer?.[1];
    const type = isRecord(refused) && typeof refused.type === 'string' ? refused.type : 'refused';
    throw new MailboxError({
      code: 'jmap_method_error',
      message: `The server refused to send held mail ${id} (${type}); it stays held.`,
      hint: 'Check the draft still exists (outbox list shows its id) and try again, or discard it.',
    });
  }
  const submissionId = typeof created.id === 'string' ? created.id : undefined;
  return (
    await transitionHeld(stateDir, id, ['sending'], 'sent', {
      decidedAt: new Date().toISOString(),
      ...(submissionId ? { submissionId } : {}),
    })
  ).record;
}

/** Discards a held mail: the record says so and the draft is destroyed (a narrowing, so nobody needs to be at a terminal). */
export async function discardHeldMail(
  account: Account,
  id: string,
  context: RequestGateContext,
): Promise<{ record: HeldMail; draftRemoved: boolean }> {
  const stateDir = await heldMailDir(account);
  const { record, previous } = await transitionHeld(stateDir, id, ['held'], 'discarded', {
    decidedAt: new Date().toISOString(),
  });
  if (previous !== 'held') throw alreadyDecided(record);
  await appendAudit(stateDir, {
    at: new Date().toISOString(),
    door: context.frontDoor ?? 'cli',
    inbox: record.inbox,
    verdict: 'discarded',
    recipients: record.rcptTo,
    subject: record.subject,
    ids: { email: record.emailId, outbox: record.id },
  });
  const gate = openServiceGate(account, withCheckStage(context));
  try {
    const { accountId } = await gate.session();
    const response = await gate.call({
      using,
      methodCalls: [['Email/set', { accountId, destroy: [record.emailId] }, 'discard']],
    });
    const destroyed = response.methodResponses[0]?.[1].destroyed;
    return { record, draftRemoved: Array.isArray(destroyed) && destroyed.includes(record.emailId) };
  } catch {
    // The record is what approvals trust; a draft left behind can be deleted like any mail.
    return { record, draftRemoved: false };
  }
}
