import { z } from 'zod';
import { bodyValue, defaultBodyProperties, renderBodyPart } from '../../mime/body-parts.js';
import { parseHeaderProperty } from '../../mime/header-forms.js';
import type { InboxAccount } from '../../store/inbox-account.js';
import type { MimePart } from '../../mime/parse-message.js';
import type { ParsedEmail } from '../../mime/parsed-email.js';
import type { EmailRecord } from '../../store/records.js';

/** Every Email property this host knows besides `header:` forms (RFC 8621 §4.1). */
export const emailProperties = [
  'id',
  'blobId',
  'threadId',
  'mailboxIds',
  'keywords',
  'size',
  'receivedAt',
  'headers',
  'messageId',
  'inReplyTo',
  'references',
  'sender',
  'from',
  'to',
  'cc',
  'bcc',
  'replyTo',
  'subject',
  'sentAt',
  'bodyStructure',
  'bodyValues',
  'textBody',
  'htmlBody',
  'attachments',
  'hasAttachment',
  'preview',
] as const;

/** Email/get's default properties (RFC 8621 §4.2). */
export const defaultEmailProperties = emailProperties.filter(
  (property) => !['headers', 'bodyStructure'].includes(property),
);

/** The arguments of Email/get and Email/parse that shape the body (RFC 8621 §4.2, §4.9). */
export const bodyFetchArgs = {
  properties: z.array(z.string()).nullable().optional(),
  bodyProperties: z.array(z.string()).optional(),
  fetchTextBodyValues: z.boolean().optional(),
  fetchHTMLBodyValues: z.boolean().optional(),
  fetchAllBodyValues: z.boolean().optional(),
  maxBodyValueBytes: z.number().int().nonnegative().optional(),
};

/** The view options of those arguments, with `defaults` where no properties were asked for. */
export function viewOptionsOf(
  input: z.infer<z.ZodObject<typeof bodyFetchArgs>>,
  defaults: readonly string[],
): EmailViewOptions {
  return {
    properties: input.properties ?? [...defaults],
    bodyProperties: input.bodyProperties,
    fetchTextBodyValues: input.fetchTextBodyValues ?? false,
    fetchHTMLBodyValues: input.fetchHTMLBodyValues ?? false,
    fetchAllBodyValues: input.fetchAllBodyValues ?? false,
    maxBodyValueBytes: input.maxBodyValueBytes ?? 0,
  };
}

/** Options of Email/get that shape the body (RFC 8621 §4.2). */
export interface EmailViewOptions {
  properties: string[];
  bodyProperties: string[] | undefined;
  fetchTextBodyValues: boolean;
  fetchHTMLBodyValues: boolean;
  fetchAllBodyValues: boolean;
  maxBodyValueBytes: number;
}

/** What an Email object is rendered from: its metadata properties and its parsed bytes. */
export interface EmailSource {
  /** id, blobId, threadId, mailboxIds, keywords, size, receivedAt; null where the message is not stored (Email/parse). */
  metadata: Record<(typeof metadataProperties)[number], unknown>;
  /** The blob the message's bytes are, which its part blob ids extend (part-blob-id.ts). */
  blobId: string;
  read(): Promise<ParsedEmail>;
}

/** The Email properties that come from the store rather than the message bytes (RFC 8621 §4.1.1). */
export const metadataProperties = ['id', 'blobId', 'threadId', 'mailboxIds', 'keywords', 'size', 'receivedAt'] as const;

/** The source of a stored message. */
export function storedEmailSource(account: InboxAccount, record: EmailRecord): EmailSource {
  return { metadata: record, blobId: record.blobId, read: () => account.email(record.id) };
}

/** Renders one Email object with the requested properties. */
export async function renderEmail(source: EmailSource, options: EmailViewOptions): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { id: source.metadata.id };
  const isMetadata = (property: string): property is (typeof metadataProperties)[number] =>
    (metadataProperties as readonly string[]).includes(property);
  const needsParse = options.properties.some((property) => !isMetadata(property));
  const message = needsParse ? await source.read() : undefined;
  const bodyProperties = options.bodyProperties ?? defaultBodyProperties;
  const parts = (list: MimePart[]): Record<string, unknown>[] =>
    list.map((part) => renderBodyPart(source.blobId, part, bodyProperties));
  for (const property of options.properties) {
    if (isMetadata(property)) {
      out[property] = source.metadata[property];
      continue;
    }
    if (!message) continue;
    switch (property) {
      case 'headers':
        out['headers'] = message.parsed.headers;
        break;
      case 'bodyStructure':
        out['bodyStructure'] = renderBodyPart(source.blobId, message.parsed.root, [...bodyProperties, 'subParts']);
        break;
      case 'textBody':
      case 'htmlBody':
      case 'attachments':
        out[property] = parts(message.facts.body[property]);
        break;
      case 'bodyValues':
        out['bodyValues'] = bodyValues(
          message.facts.body.textBody,
          message.facts.body.htmlBody,
          message.parsed.root,
          options,
        );
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
        out[property] = message.facts[property];
        break;
      default: {
        const header = parseHeaderProperty(property);
        if (header) out[property] = message.header(header);
      }
    }
  }
  return out;
}

function bodyValues(
  textBody: MimePart[],
  htmlBody: MimePart[],
  root: MimePart,
  options: EmailViewOptions,
): Record<string, unknown> {
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
