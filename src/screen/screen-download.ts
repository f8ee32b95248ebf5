import { MailboxError } from '../errors.js';
import type { JmapRequest, JmapResponse } from '../jmap/jmap-types.js';
import { senderFactProperties, senderFactsOf, type SenderFacts } from '../trust/sender-authentication.js';
import { mailRequest } from './mail-method-answers.js';

/**
 * A download under receive rules names its message: no method on every server says which message holds a
 * blob (Blob/lookup is optional; Cyrus 3.6 lacks it), so the message is judged and must hold the blob.
 */

export interface DownloadCheckDeps {
  accountId: string;
  lookup(request: JmapRequest): Promise<JmapResponse>;
  isHeld(emailId: string, facts: SenderFacts): Promise<boolean>;
}

/** Throws unless `blobId` belongs to message `mailId` and that message is shown. */
export async function checkDownloadedMessage(
  blobId: string,
  mailId: string | undefined,
  deps: DownloadCheckDeps,
): Promise<void> {
  if (!mailId) {
    throw new MailboxError({
      code: 'invalid_input',
      message:
        "Your operator's receive rules apply to this inbox, so a download names the message it comes from: download.mail_id is missing.",
      hint: 'Give download.mail_id: the id of the message whose attachment this is (read_message shows the download call with it).',
    });
  }
  const properties = ['id', 'blobId', 'bodyStructure', ...senderFactProperties];
  const get = { accountId: deps.accountId, ids: [mailId], properties, bodyProperties: ['blobId', 'subParts'] };
  const answer = await deps.lookup(mailRequest(['Email/get', get, 'm']));
  const email = (answer.methodResponses[0]?.[1].list as Record<string, unknown>[] | undefined)?.[0];
  const facts = email ? senderFactsOf(email, { withSender: true }) : undefined;
  if (!email || !facts) {
    throw new MailboxError({
      code: 'attachment_invalid',
      message: `There is no message ${mailId} in this inbox; nothing was downloaded.`,
      hint: "Take the message id and its attachment's blob id from read_message.",
    });
  }
  if (await deps.isHeld(mailId, facts)) {
    throw new MailboxError({
      code: 'policy_refused',
      message: `Message ${mailId} is held back by your operator's receive rules: none of it is shown to you, its attachments included. Nothing was downloaded.`,
      hint: 'Your operator set these rules; ask them if you need this message.',
    });
  }
  if (!blobsOf(email).has(blobId)) {
    throw new MailboxError({
      code: 'attachment_invalid',
      message: `Blob ${blobId} is not part of message ${mailId}; nothing was downloaded.`,
      hint: 'Use the download call read_message shows for the attachment: it names the message and the blob together.',
    });
  }
}

function blobsOf(email: Record<string, unknown>): Set<string> {
  const blobs = new Set<string>();
  // Stryker disable next-line ConditionalExpression: a missing blob id adds undefined, which no requested blob id equals
  if (typeof email.blobId === 'string') blobs.add(email.blobId);
  const stack: unknown[] = [email.bodyStructure];
  for (let part = stack.pop(); part !== undefined; part = stack.pop()) {
    // Stryker disable next-line ConditionalExpression: a primitive part reads as one without blob id or parts, and null still stops here
    if (typeof part !== 'object' || part === null) continue;
    const record = part as Record<string, unknown>;
    // Stryker disable next-line ConditionalExpression: as above, undefined never equals a requested blob id
    if (typeof record.blobId === 'string') blobs.add(record.blobId);
    if (Array.isArray(record.subParts)) stack.push(...(record.subParts as unknown[]));
  }
  return blobs;
}
