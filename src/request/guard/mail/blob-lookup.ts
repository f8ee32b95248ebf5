import { MailboxError } from '../../../errors.js';
import type { CheckContext } from '../../../gate/outgoing.js';
import { isRecord } from '../../../is-record.js';

/**
 * The bytes of a blob a mail references: uploaded earlier in this call, a Blob/upload of the batch (RFC
 * 9404), or downloaded through the gate. One larger than the guard reads is refused, not passed unread.
 */

/** One character per byte, for scanning: credentials are ASCII, and a binary file stays the same length. */
export function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** What the guard reads of one blob at most. */
export const maxBlobBytes = 50 * 1024 * 1024;

/** What one call remembers of its uploads, and each blob read once per call; one context per gate, one gate per call. */
const memos = new WeakMap<
  CheckContext,
  { uploads: Map<string, { bytes: Uint8Array }>; blobs: Map<string, Promise<Uint8Array>> }
>();

export function callMemo(context: CheckContext) {
  let memo = memos.get(context);
  if (!memo) {
    memo = { uploads: new Map(), blobs: new Map() };
    memos.set(context, memo);
  }
  return memo;
}

function unreadable(blobId: string, why: string): MailboxError {
  return new MailboxError({
    code: 'policy_refused',
    message: `Not sent: the blob ${blobId} the mail carries cannot be checked against your operator's rules (${why}).`,
    hint: "Send the content another way the operator's rules can check (a smaller file, text in the body), or ask your operator.",
    details: { rule: { layer: 'default', rule: 'unjudgeable' } },
  });
}

/** The bytes of `blobId` as seen from a batch whose Blob/upload creates are `batchUploads`. */
export async function blobBytes(
  context: CheckContext,
  blobId: string,
  batchUploads: ReadonlyMap<string, unknown>,
): Promise<Uint8Array> {
  const memo = callMemo(context);
  const uploaded = memo.uploads.get(blobId);
  if (uploaded) return uploaded.bytes;
  if (blobId.startsWith('#')) return bytesOfBlobUpload(context, blobId, batchUploads);
  let pending = memo.blobs.get(blobId);
  if (!pending) {
    pending = context.download(blobId, maxBlobBytes).catch((error: unknown) => {
      throw error instanceof MailboxError && error.code === 'response_too_large'
        ? unreadable(blobId, `larger than ${maxBlobBytes} bytes`)
        : error;
    });
    memo.blobs.set(blobId, pending);
  }
  return pending;
}

async function bytesOfBlobUpload(
  context: CheckContext,
  reference: string,
  batchUploads: ReadonlyMap<string, unknown>,
): Promise<Uint8Array> {
  const create = batchUploads.get(reference.slice(1));
  const data = isRecord(create) ? create.data : undefined;
  if (!Array.isArray(data)) throw unreadable(reference, 'it is created nowhere in this request');
  const pieces: Uint8Array[] = [];
  for (const source of data) {
    const item = isRecord(source) ? source : {};
    if (typeof item['data:asText'] === 'string') pieces.push(Buffer.from(item['data:asText'], 'utf8'));
    else if (typeof item['data:asBase64'] === 'string') pieces.push(Buffer.from(item['data:asBase64'], 'base64'));
    else if (typeof item.blobId === 'string' && !item.blobId.startsWith('#')) {
      const whole = await blobBytes(context, item.blobId, batchUploads);
      const offset = typeof item.offset === 'number' ? item.offset : 0;
      const length = typeof item.length === 'number' ? item.length : whole.byteLength - offset;
      pieces.push(whole.subarray(offset, offset + length));
    } else throw unreadable(reference, 'one of its data sources cannot be read here');
  }
  return Buffer.concat(pieces);
}
