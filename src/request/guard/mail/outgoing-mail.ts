import PostalMime from 'postal-mime';
import { MailboxError } from '../../../errors.js';
import type { CheckContext } from '../../../gate/outgoing.js';
import type { ScanPart } from '../../../policy/secret-scan.js';
import type { MailSource } from './batch-sends.js';
import { blobBytes, latin1 } from './blob-lookup.js';
import { recipientsOfCreate, recipientsOfHeaderList, type Recipients } from './mail-recipients.js';
import { isRecord } from '../../../is-record.js';

/**
 * What the guard knows of one mail about to be sent: header recipients, what a person is shown, every
 * piece the scan reads; from its create, else its raw message (postal-mime, so encodings scan decoded).
 */

export interface OutgoingMail {
  /** Recipients named in the headers: they receive it when the submission has no envelope. */
  headerRecipients: Recipients;
  subject: string;
  firstLines: string;
  attachments: { name: string; size: number }[];
  scanParts: ScanPart[];
}

const firstLineCount = 6;
const firstLineChars = 500;

function firstLinesOf(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n').slice(0, firstLineCount).join('\n');
  return lines.length > firstLineChars ? `${lines.slice(0, firstLineChars)}…` : lines;
}

/** Every string under a value, and every blob it references with the name it travels under. */
function walk(value: unknown, strings: string[], blobs: { blobId: string; name: string }[], name = ''): void {
  if (typeof value === 'string') strings.push(value);
  else if (Array.isArray(value)) value.forEach((item) => walk(item, strings, blobs));
  else if (isRecord(value)) {
    const partName = typeof value.name === 'string' ? value.name : name;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'blobId' && typeof inner === 'string') blobs.push({ blobId: inner, name: partName || inner });
      else walk(inner, strings, blobs, partName);
    }
  }
}

export async function readOutgoingMail(
  source: Exclude<MailSource, { kind: 'unreadable' }>,
  context: CheckContext,
  batchUploads: ReadonlyMap<string, unknown>,
): Promise<OutgoingMail> {
  if (source.kind === 'create') return mailOfCreate(source.create, context, batchUploads);
  const blobId = source.kind === 'import' ? source.blobId : await blobIdOfEmail(source.emailId, context);
  return mailOfRaw(await blobBytes(context, blobId, batchUploads));
}

async function mailOfCreate(
  create: Readonly<Record<string, unknown>>,
  context: CheckContext,
  batchUploads: ReadonlyMap<string, unknown>,
): Promise<OutgoingMail> {
  const { subject: rawSubject, bodyValues, ...rest } = create;
  const subject = typeof rawSubject === 'string' ? rawSubject : '';
  const bodies = isRecord(bodyValues)
    ? Object.values(bodyValues).flatMap((v) => (isRecord(v) && typeof v.value === 'string' ? [v.value] : []))
    : [];
  const strings: string[] = [];
  const blobs: { blobId: string; name: string }[] = [];
  walk(rest, strings, blobs);
  const parts: ScanPart[] = [
    { where: 'the subject', text: subject },
    { where: 'the body', text: bodies.join('\n') },
    { where: 'the header fields, addresses and names', text: strings.join('\n') },
  ];
  const attachments: OutgoingMail['attachments'] = [];
  for (const { blobId, name } of blobs) {
    const bytes = await blobBytes(context, blobId, batchUploads);
    attachments.push({ name, size: bytes.byteLength });
    parts.push({ where: `the attachment ${name}`, text: latin1(bytes) });
  }
  return {
    headerRecipients: recipientsOfCreate(create),
    subject,
    firstLines: firstLinesOf(bodies[0] ?? ''),
    attachments,
    scanParts: parts,
  };
}

async function mailOfRaw(bytes: Uint8Array): Promise<OutgoingMail> {
  const parsed = await PostalMime.parse(bytes);
  const headers = parsed.headers.map((h) => ({ name: h.key, value: h.value }));
  const subject = parsed.subject ?? '';
  const text = parsed.text ?? '';
  const parts: ScanPart[] = [
    { where: 'the subject', text: subject },
    { where: 'the body', text: `${text}\n${parsed.html ?? ''}` },
    { where: 'the header fields, addresses and names', text: headers.map((h) => `${h.name}: ${h.value}`).join('\n') },
  ];
  const attachments: OutgoingMail['attachments'] = [];
  for (const file of parsed.attachments) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: postal-mime hands an attachment over as an ArrayBuffer unless asked for another attachmentEncoding, which this never asks
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : new Uint8Array(file.content);
    const name = file.filename ?? file.mimeType;
    attachments.push({ name, size: content.byteLength });
    parts.push({ where: `the attachment ${name}`, text: `${name}\n${latin1(content)}` });
  }
  return {
    headerRecipients: recipientsOfHeaderList(headers),
    subject,
    firstLines: firstLinesOf(text),
    attachments,
    scanParts: parts,
  };
}

async function blobIdOfEmail(emailId: string, context: CheckContext): Promise<string> {
  const { accountId } = await context.session();
  const answer = await context.read({
    using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
    methodCalls: [['Email/get', { accountId, ids: [emailId], properties: ['blobId'] }, 'mail']],
  });
  const list = answer.methodResponses[0]?.[1].list;
  const blobId = Array.isArray(list) && isRecord(list[0]) ? list[0].blobId : undefined;
  if (typeof blobId === 'string') return blobId;
  throw new MailboxError({
    code: 'policy_refused',
    message: `Not sent: the mail to send (${emailId}) is not in this inbox, so it cannot be checked against your operator's rules.`,
    hint: 'Send a mail id from list_inbox, list_sent or a draft you created.',
    details: { rule: { layer: 'default', rule: 'unjudgeable' } },
  });
}
