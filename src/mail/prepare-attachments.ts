import { readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { MailboxError } from '../errors.js';
import type { JmapLimits } from '../jmap/jmap-types.js';

/** A local file the operator asked to attach, read and typed. */
export interface LocalAttachment {
  path: string;
  name: string;
  type: string;
  size: number;
  bytes: Uint8Array;
}

const mediaTypes: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.ics': 'text/calendar',
  '.eml': 'message/rfc822',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export async function readAttachments(paths: readonly string[]): Promise<LocalAttachment[]> {
  const files: LocalAttachment[] = [];
  for (const given of paths) {
    const path = resolve(given);
    try {
      if (!(await stat(path)).isFile()) throw new Error('not a regular file');
      const bytes = new Uint8Array(await readFile(path));
      const type = mediaTypes[extname(path).toLowerCase()] ?? 'application/octet-stream';
      files.push({ path, name: basename(path), type, size: bytes.byteLength, bytes });
    } catch (error) {
      throw new MailboxError({
        code: 'attachment_invalid',
        message: `Cannot read the attachment ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
        hint: 'Give the path of an existing regular file the operator asked to attach.',
        cause: error,
      });
    }
  }
  return files;
}

/** Checks the files against the session limits before anything is uploaded (RFC 8620 §2, RFC 8621 §1.3.1). */
export function checkAttachmentLimits(files: readonly LocalAttachment[], limits: JmapLimits): void {
  for (const file of files) {
    if (limits.maxSizeUpload !== undefined && file.size > limits.maxSizeUpload)
      throw tooLarge(
        `${file.name} is ${file.size} bytes; the server accepts uploads up to ${limits.maxSizeUpload} bytes (maxSizeUpload).`,
      );
  }
  const total = files.reduce((sum, f) => sum + f.size, 0);
  // Base64 in the message grows attachments by a third; the server's limit counts encoded size.
  const encoded = Math.ceil(total / 3) * 4;
  if (limits.maxSizeAttachmentsPerEmail !== undefined && encoded > limits.maxSizeAttachmentsPerEmail)
    throw tooLarge(
      `The attachments total ${total} bytes (about ${encoded} encoded); one e-mail may carry ${limits.maxSizeAttachmentsPerEmail} bytes (maxSizeAttachmentsPerEmail).`,
    );
}

/** `$ATTACHMENT_<i>_BLOB_ID/_NAME/_TYPE/_SIZE` and `$ATTACHMENTS` (ready for an Email's attachments). */
export function attachmentVariables(
  files: readonly LocalAttachment[],
  blobIds: readonly (string | undefined)[],
): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  const list: Record<string, unknown>[] = [];
  files.forEach((file, i) => {
    const blobId = blobIds[i];
    if (blobId !== undefined) vars[`ATTACHMENT_${i}_BLOB_ID`] = blobId;
    vars[`ATTACHMENT_${i}_NAME`] = file.name;
    vars[`ATTACHMENT_${i}_TYPE`] = file.type;
    vars[`ATTACHMENT_${i}_SIZE`] = file.size;
    list.push({
      blobId: blobId ?? `$ATTACHMENT_${i}_BLOB_ID`,
      type: file.type,
      name: file.name,
      disposition: 'attachment',
    });
  });
  if (files.length > 0) vars.ATTACHMENTS = list;
  return vars;
}

function tooLarge(message: string): MailboxError {
  return new MailboxError({
    code: 'attachment_too_large',
    message,
    hint: 'Send a smaller file, split it over several messages, or share it another way (e.g. a link).',
  });
}
