import { bodyValue, defaultBodyProperties, renderBodyPart } from '../../mime/body-parts.js';
import { emailFacts } from '../../mime/email-facts.js';
import { headerPropertyValue, parseHeaderProperty } from '../../mime/header-forms.js';
import type { InboxAccount } from '../../store/inbox-account.js';
import type { MimePart } from '../../mime/parse-message.js';
import type { EmailRecord } from '../../store/records.js';

/** Every Email property this host knows besides `header:` forms (RFC 8621 §4.1). */
export const emailProperties = [
  'id', 'blobId', 'threadId', 'mailboxIds', 'keywords', 'size', 'receivedAt', 'headers', 'messageId', 'inReplyTo',
  'references', 'sender', 'from', 'to', 'cc', 'bcc', 'replyTo', 'subject', 'sentAt', 'bodyStructure', 'bodyValues',
  'textBody', 'htmlBody', 'attachments', 'hasAttachment', 'preview',
] as const;

/** Email/get's default properties (RFC 8621 §4.2). */
export const defaultEmailProperties = emailProperties.filter((property) => !['headers', 'bodyStructure'].includes(property));

/** Options of Email/get that shape the body (RFC 8621 §4.2). */
export interface EmailViewOptions {
  properties: string[];
  bodyProperties: string[] | undefined;
  fetchTextBodyValues: boolean;
  fetchHTMLBodyValues: boolean;
  fetchAllBodyValues: boolean;
  maxBodyValueBytes: number;
}

/** Renders one Email object with the requested properties. */
export async function renderEmail(account: InboxAccount, record: EmailRecord, options: EmailViewOptions): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { id: record.id };
  const metadata: Record<string, unknown> = {
    blobId: record.blobId,
    threadId: record.threadId,
    mailboxIds: record.mailboxIds,
    keywords: record.keywords,
    size: record.size,
    receivedAt: record.receivedAt,
  };
  const needsParse = options.properties.some((property) => !(property in metadata) && property !== 'id');
  const facts = needsParse ? emailFacts(await account.parsed(record.id)) : undefined;
  const parsed = needsParse ? await account.parsed(record.id) : undefined;
  const bodyProperties = options.bodyProperties ?? defaultBodyProperties;
  const parts = (list: MimePart[]): Record<string, unknown>[] => list.map((part) => renderBodyPart(record.id, part, bodyProperties));
  for (const property of options.properties) {
    if (property === 'id') continue;
    if (property in metadata) {
      out[property] = metadata[property];
      continue;
    }
    if (!facts || !parsed) continue;
    switch (property) {
      case 'headers':
        out['headers'] = facts.headers;
        break;
      case 'bodyStructure':
        out['bodyStructure'] = renderBodyPart(record.id, parsed.root, [...bodyProperties, 'subParts']);
        break;
      case 'textBody':
      case 'htmlBody':
      case 'attachments':
        out[property] = parts(facts.body[property]);
        break;
      case 'bodyValues':
        out['bodyValues'] = bodyValues(facts.body.textBody, facts.body.htmlBody, parsed.root, options);
        break;
      case 'hasAttachment':
      case 'preview':
      case 'subject':
      case 'sentAt':
      case 'messageId':
      case 'inReplyTo':
      case 'references':
      case 'sender':
      case 'from':
      case 'to':
      case 'cc':
      case 'bcc':
      case 'replyTo':
        out[property] = facts[property];
        break;
      default: {
        const header = parseHeaderProperty(property);
        if (header) out[property] = headerPropertyValue(facts.headers, header);
      }
    }
  }
  return out;
}

function bodyValues(textBody: MimePart[], htmlBody: MimePart[], root: MimePart, options: EmailViewOptions): Record<string, unknown> {
  const chosen: MimePart[] = [];
  if (options.fetchAllBodyValues) chosen.push(...leaves(root).filter((part) => part.type.startsWith('text/')));
  if (options.fetchTextBodyValues) chosen.push(...textBody);
  if (options.fetchHTMLBodyValues) chosen.push(...htmlBody);
  const values: Record<string, unknown> = {};
  for (const part of chosen) {
    if (part.partId === null || !part.type.startsWith('text/') || part.partId in values) continue;
    values[part.partId] = bodyValue(part, options.maxBodyValueBytes);
  }
  return values;
}

function leaves(part: MimePart): MimePart[] {
  return part.subParts ? part.subParts.flatMap(leaves) : [part];
}

/** True when a property name is one Email/get understands. */
export function isKnownEmailProperty(property: string): boolean {
  return (emailProperties as readonly string[]).includes(property) || parseHeaderProperty(property) !== undefined;
}
