import type { FileHandle } from 'node:fs/promises';

/** Where a response body goes: memory for answers to parse, a file for downloads. Both are capped. */
export type BodyTarget = { kind: 'memory' } | { kind: 'file'; handle: FileHandle };

export class BodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`body exceeds ${limitBytes} bytes`);
  }
}

/** Reads a body until past `maxBytes` (an endless stream costs the cap); the caller's deadline aborts the read. */
export async function readBoundedBody(
  response: Response,
  maxBytes: number,
  target: BodyTarget,
): Promise<{ body: Buffer; size: number }> {
  // No header reads as 0 and an unreadable one as NaN: neither is over the cap, and the read still counts.
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(maxBytes);
  }
  if (!response.body) return { body: Buffer.alloc(0), size: 0 };
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  if (target.kind === 'file') await target.handle.truncate(0);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new BodyTooLarge(maxBytes);
      if (target.kind === 'file') await target.handle.write(value, 0, value.byteLength, size - value.byteLength);
      else chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
  return { body: target.kind === 'memory' ? Buffer.concat(chunks, size) : Buffer.alloc(0), size };
}
