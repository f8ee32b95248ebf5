import { z } from 'zod';
import { HostedToolError } from '../tools/hosted-tool-error.js';
import type { DraftSpec } from './mail-plans.js';
import type { InboxConnection } from './mail-store-client.js';

/** Attachments of one message at most, decoded (base64 in the MCP request adds a third). */
export const maxAttachmentBytes = 5 * 1024 * 1024;
export const maxAttachments = 10;

/** An address list input: `bob@example.org` or `Bob <bob@example.org>` per entry. */
export const addressListInput = (what: string) =>
  z.array(z.string().min(3).max(320)).max(50).describe(`${what}: each "bob@example.org" or "Bob <bob@example.org>".`);

/** The attachments input: base64 content, a file name and a media type. */
export const attachmentsInput = z
  .array(
    z.object({
      filename: z.string().min(1).max(255).describe('File name the recipient sees.'),
      content_type: z
        .string()
        .regex(/^[\w.+-]+\/[\w.+-]+$/, 'content_type is a media type such as application/pdf')
        .optional()
        .describe('Media type, e.g. application/pdf (default application/octet-stream).'),
      content_base64: z.string().min(1).describe('The file content, base64-encoded.'),
    }),
  )
  .max(maxAttachments)
  .optional()
  .describe(`Files to attach, base64 (at most ${maxAttachments}, ${maxAttachmentBytes / 1024 / 1024} MiB together).`);

export type AttachmentInput = NonNullable<z.output<typeof attachmentsInput>>[number];

const bareAddress = /^[^\s<>@,;:"()[\]\\]+@[^\s<>@,;:"()[\]\\]+\.[^\s<>@,;:"()[\]\\]+$/;

/** Parses `addr` or `Name <addr>`; a line break or a second address is refused (no header injection). */
export function parseAddress(text: string, field: string): { name?: string; email: string } {
  const trimmed = text.trim();
  if (/[\r\n]/.test(trimmed)) throw badInput(`${field} holds a line break.`);
  if (bareAddress.test(trimmed)) return { email: trimmed };
  const match = /^"?([^"<>]*?)"?\s*<([^<>]+)>$/.exec(trimmed);
  if (match?.[2] && bareAddress.test(match[2].trim())) {
    const name = (match[1] ?? '').trim();
    return name === '' ? { email: match[2].trim() } : { name, email: match[2].trim() };
  }
  throw badInput(`${field} "${trimmed.slice(0, 80)}" is not an e-mail address.`);
}

/** Parses every entry of an address list. */
export function parseAddresses(
  list: readonly string[] | undefined,
  field: string,
): Array<{ name?: string; email: string }> {
  return (list ?? []).map((entry) => parseAddress(entry, field));
}

/** Decodes the attachments, checks the caps and uploads each one; returns the draft's attachment list. */
export async function uploadAttachments(
  inbox: InboxConnection,
  files: readonly AttachmentInput[] | undefined,
): Promise<DraftSpec['attachments']> {
  const decoded = (files ?? []).map((file) => ({ file, bytes: decodeBase64(file.content_base64, file.filename) }));
  const total = decoded.reduce((sum, entry) => sum + entry.bytes.length, 0);
  if (total > maxAttachmentBytes)
    throw badInput(
      `The attachments hold ${Math.ceil(total / 1024)} KiB; at most ${maxAttachmentBytes / 1024} KiB can go in one message.`,
    );
  const uploaded: DraftSpec['attachments'] = [];
  for (const { file, bytes } of decoded) {
    const type = file.content_type ?? 'application/octet-stream';
    const { blobId } = await inbox.upload(bytes, type);
    uploaded.push({ blobId, type, name: safeFileName(file.filename) });
  }
  return uploaded;
}

function decodeBase64(text: string, filename: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw badInput(`The content of ${filename.slice(0, 80)} is not base64.`);
  return Buffer.from(compact, 'base64');
}

/** A file name without path parts or control characters (it lands in a MIME header). */
function safeFileName(name: string): string {
  const base =
    name
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .split(/[\\/]/)
      .pop()
      ?.trim() ?? '';
  return base === '' ? 'attachment' : base.slice(0, 255);
}

function badInput(message: string): HostedToolError {
  return new HostedToolError('invalid_input', message, 'Fix the input and call the tool again.');
}
