import { scrypt } from 'node:crypto';
import { scryptParams } from '../wire-constants.js';

/** scrypt needs 128·N·r bytes (16 MiB here); Node's default cap of 32 MiB is too close for comfort. */
export const scryptMaxmem = 64 * 1024 * 1024;

/** One proof-of-work hash on the libuv pool; the salt is the UTF-8 of its text, never hex-decoded (§4.3). */
export function computePowDigest(challenge: string, nonce: number | string, salt: string): Promise<Buffer> {
  const { N, r, p, dkLen } = scryptParams;
  return new Promise((resolve, reject) => {
    scrypt(
      Buffer.from(`${challenge}:${nonce}`, 'utf8'), // the spec §4.3 password
      Buffer.from(salt, 'utf8'),
      dkLen,
      { N, r, p, maxmem: scryptMaxmem },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** Leading zero bits of a digest read as one big-endian number. */
export function countLeadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}
