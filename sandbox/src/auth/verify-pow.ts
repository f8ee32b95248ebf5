import { scrypt, timingSafeEqual } from 'node:crypto';
import { scryptParams } from '../wire-constants.js';

/** What a client submits for one challenge (spec §2.5, §4.3). */
export interface PowSubmission {
  /** The challenge text: the challenge JWT's `jti`. */
  challenge: string;
  nonce: string;
  powHex: string;
  /** Salt TEXT; its UTF-8 bytes are the scrypt salt, never hex-decoded (spec §4.3). */
  salt: string;
  difficulty: number;
}

export type PowVerdict =
  { ok: true } | { ok: false; reason: 'digest_mismatch' | 'too_few_zero_bits'; zeroBits: number };

/** A nonce is a decimal string (spec §2.5); 20 digits bounds it without rejecting any real solver. */
export const decimalNoncePattern = /^[0-9]{1,20}$/;

/** 64 bytes as hex; the spec says lowercase, uppercase is tolerated since it names the same bytes. */
export const powHexPattern = /^[0-9a-fA-F]{128}$/;

// 128·N·r bytes (16 MiB) plus headroom; node's default maxmem (32 MiB) is too close for comfort.
const scryptMaxMem = 64 * 1024 * 1024;

/** Number of leading zero bits of `digest`, read big-endian. */
export function countLeadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** scrypt over the UTF-8 text `<challenge>:<nonce>` with the salt text's UTF-8 bytes (spec §4.3). */
export function computePowDigest(challenge: string, nonce: string, salt: string): Promise<Buffer> {
  const { N, r, p, dkLen } = scryptParams;
  return new Promise((resolve, reject) => {
    scrypt(
      Buffer.from(`${challenge}:${nonce}`, 'utf8'),
      Buffer.from(salt, 'utf8'),
      dkLen,
      { N, r, p, maxmem: scryptMaxMem },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/**
 * Recomputes the digest and checks it against `powHex` and the difficulty. The caller has
 * already checked the nonce and powHex shapes (those are malformed requests, not wrong proofs).
 */
export async function verifyPow(submission: PowSubmission): Promise<PowVerdict> {
  const digest = await computePowDigest(submission.challenge, submission.nonce, submission.salt);
  const claimed = Buffer.from(submission.powHex, 'hex');
  const zeroBits = countLeadingZeroBits(digest);
  if (claimed.length !== digest.length || !timingSafeEqual(claimed, digest)) {
    return { ok: false, reason: 'digest_mismatch', zeroBits };
  }
  if (zeroBits < submission.difficulty) return { ok: false, reason: 'too_few_zero_bits', zeroBits };
  return { ok: true };
}
