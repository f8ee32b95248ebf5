/**
 * Blob ids of message parts. A part's id is its message's blob id, "_", and its partId with dashes
 * for dots (RFC 8620 §1.2 allows only URL-safe characters): `BM1f…_2-1`. A part that is itself a
 * message (an attached .eml) has parts too, so the suffixes chain: `BM1f…_2_1`. Stored messages
 * (`B<emailId>`) and uploads (`G…`) are the roots.
 */

/** The blob id of a part of the message stored as `containerBlobId`. */
export function partBlobId(containerBlobId: string, partId: string): string {
  return `${containerBlobId}_${partId.replaceAll('.', '-')}`;
}

/** The stored blob a blob id starts from and the partIds to descend, outermost first; undefined for a malformed id. */
export function splitPartBlobId(blobId: string): { root: string; partIds: string[] } | undefined {
  const [root, ...segments] = blobId.split('_');
  if (!root || !/^[A-Za-z0-9-]+$/.test(root) || !segments.every((segment) => /^\d+(-\d+)*$/.test(segment)))
    return undefined;
  return { root, partIds: segments.map((segment) => segment.replaceAll('-', '.')) };
}
