import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { z } from 'zod';
import { MethodError } from '../protocol/method-error.js';

const address = z.object({ name: z.string().nullable().optional(), email: z.string() });
const bodyPart = z.object({
  partId: z.string().optional(),
  blobId: z.string().optional(),
  type: z.string().optional(),
  charset: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  disposition: z.string().nullable().optional(),
  cid: z.string().nullable().optional(),
});

/** The Email/set create object this host accepts (RFC 8621 §4.6). */
export const emailCreate = z
  .object({
    mailboxIds: z.record(z.string(), z.literal(true)),
    keywords: z.record(z.string(), z.literal(true)).optional(),
    receivedAt: z.string().optional(),
    from: z.array(address).nullable().optional(),
    sender: z.array(address).nullable().optional(),
    to: z.array(address).nullable().optional(),
    cc: z.array(address).nullable().optional(),
    bcc: z.array(address).nullable().optional(),
    replyTo: z.array(address).nullable().optional(),
    subject: z.string().nullable().optional(),
    sentAt: z.string().nullable().optional(),
    messageId: z.array(z.string()).nullable().optional(),
    inReplyTo: z.array(z.string()).nullable().optional(),
    references: z.array(z.string()).nullable().optional(),
    textBody: z.array(bodyPart).optional(),
    htmlBody: z.array(bodyPart).optional(),
    attachments: z.array(bodyPart).optional(),
    bodyValues: z.record(z.string(), z.object({ value: z.string() }).loose()).optional(),
  })
  .catchall(z.unknown());
/** A validated Email/set create object. */
export type EmailCreate = z.infer<typeof emailCreate>;

type BodyPartInput = z.infer<typeof bodyPart>;
type Address = z.infer<typeof address>;

/** Loads blob bytes for attachments and blob-backed body parts. */
export type BlobLoader = (blobId: string) => Promise<Buffer | undefined>;

/** Composes a real RFC 5322 message from an Email/set create object with nodemailer's MailComposer. */
export async function composeMessage(
  create: EmailCreate,
  loadBlob: BlobLoader,
  fallbackDomain: string,
): Promise<Buffer> {
  const headers: { key: string; value: string }[] = [];
  for (const [key, value] of Object.entries(create)) {
    // header:Name[:asRaw|:asText][:all] create properties (RFC 8621 §4.6), their names checked by
    // the caller; other forms need structure we do not build.
    const match = /^header:([^:]+)(?::as(Raw|Text))?(:all)?$/.exec(key);
    if (!match?.[1]) continue;
    const values: unknown = match[3] ? value : [value];
    if (!Array.isArray(values) || !values.every((one) => typeof one === 'string'))
      throw invalid(key, match[3] ? 'must be a list of strings' : 'must be a string');
    for (const one of values) headers.push({ key: match[1], value: one.trim() });
  }
  const text = await bodyContent(create.textBody, create, loadBlob, 'textBody');
  const html = await bodyContent(create.htmlBody, create, loadBlob, 'htmlBody');
  const attachments = await Promise.all(
    (create.attachments ?? []).map(async (part, index) => {
      if (!part.blobId) throw invalid(`attachments/${index}`, 'needs a blobId');
      const content = await loadBlob(part.blobId);
      if (!content)
        throw new MethodError('blobNotFound', `Blob ${part.blobId} is not in this account; upload it first.`, {
          notFound: [part.blobId],
        });
      return {
        content,
        contentType: part.type ?? 'application/octet-stream',
        ...(part.name ? { filename: part.name } : {}),
        contentDisposition: part.disposition ?? 'attachment',
        ...(part.cid ? { cid: part.cid } : {}),
      };
    }),
  );
  const fromDomain = create.from?.[0]?.email.split('@')[1] ?? fallbackDomain;
  const composer = new MailComposer({
    ...addressOption('from', create.from?.slice(0, 1)),
    ...addressOption('sender', create.sender?.slice(0, 1)),
    ...addressOption('to', create.to),
    ...addressOption('cc', create.cc),
    ...addressOption('bcc', create.bcc),
    ...addressOption('replyTo', create.replyTo),
    ...(create.subject != null ? { subject: create.subject } : {}),
    messageId: `<${create.messageId?.[0] ?? `${randomUUID()}@${fromDomain}`}>`,
    ...(create.inReplyTo?.length ? { inReplyTo: create.inReplyTo.map((id) => `<${id}>`).join(' ') } : {}),
    ...(create.references?.length ? { references: create.references.map((id) => `<${id}>`) } : {}),
    date: create.sentAt ? new Date(create.sentAt) : new Date(),
    ...(text !== undefined ? { text } : {}),
    ...(html !== undefined ? { html } : {}),
    attachments,
    headers,
    // Content comes only from blobs we hold; never let the composer read files or URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const node = composer.compile();
  // Drafts keep their Bcc (RFC 8621 §7.5: the server strips it when sending, not when storing).
  node.keepBcc = true;
  return node.build();
}

function addressOption(
  key: string,
  list: Address[] | null | undefined,
): Record<string, { name: string; address: string }[]> {
  if (!list?.length) return {};
  return { [key]: list.map((entry) => ({ name: entry.name ?? '', address: entry.email })) };
}

async function bodyContent(
  parts: BodyPartInput[] | undefined,
  create: EmailCreate,
  loadBlob: BlobLoader,
  property: string,
): Promise<string | undefined> {
  if (!parts?.length) return undefined;
  if (parts.length > 1) throw invalid(property, 'may hold one part in this sandbox');
  const part = parts[0] as BodyPartInput;
  if (part.partId !== undefined) {
    const value = create.bodyValues?.[part.partId];
    if (!value) throw invalid(property, `refers to partId "${part.partId}" that bodyValues does not contain`);
    return value.value;
  }
  if (part.blobId) {
    const data = await loadBlob(part.blobId);
    if (!data)
      throw new MethodError('blobNotFound', `Blob ${part.blobId} is not in this account.`, { notFound: [part.blobId] });
    return data.toString('utf8');
  }
  throw invalid(property, 'needs a partId (with bodyValues) or a blobId');
}

function invalid(property: string, why: string): MethodError {
  return new MethodError('invalidProperties', `${property} ${why}.`, { properties: [property] });
}
