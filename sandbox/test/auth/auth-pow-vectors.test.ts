import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countLeadingZeroBits, verifyPow } from '../../src/auth/verify-pow.js';

const vectorFile = z.object({
  vectors: z.array(
    z.object({
      challenge: z.string(),
      difficulty: z.number(),
      nonce: z.string(),
      powHex: z.string(),
      salt: z.string(),
    }),
  ),
});
const { vectors } = vectorFile.parse(
  JSON.parse(readFileSync(new URL('../../../test/fixtures/pow-vectors.json', import.meta.url), 'utf8')),
);

describe('sandbox proof-of-work verifier (spec §4.3, fixtures/pow-vectors.json)', () => {
  it.each(vectors)('accepts the published solution of "$challenge" at difficulty $difficulty', async (vector) => {
    expect(await verifyPow(vector)).toEqual({ ok: true });
  });

  it.each(vectors)('rejects "$challenge" when one digest byte is tampered with', async (vector) => {
    const bytes = Buffer.from(vector.powHex, 'hex');
    bytes[63] = (bytes[63] ?? 0) ^ 0x01;
    expect(await verifyPow({ ...vector, powHex: bytes.toString('hex') })).toMatchObject({
      ok: false,
      reason: 'digest_mismatch',
    });
  });

  it('rejects a correct digest sent with another nonce', async () => {
    const vector = vectors[0]!;
    const verdict = await verifyPow({ ...vector, nonce: String(Number(vector.nonce) + 1) });
    expect(verdict).toMatchObject({ ok: false, reason: 'digest_mismatch' });
  });

  it('rejects a solution computed with another salt', async () => {
    const vector = vectors.find((v) => v.challenge === 'other-salt-check')!;
    const verdict = await verifyPow({ ...vector, salt: vectors[0]!.salt });
    expect(verdict).toMatchObject({ ok: false, reason: 'digest_mismatch' });
  });

  it('rejects an honest digest that has fewer zero bits than the difficulty asks', async () => {
    const vector = vectors.find((v) => v.challenge === 'fixture-alpha')!;
    const zeroBits = countLeadingZeroBits(Buffer.from(vector.powHex, 'hex'));
    const verdict = await verifyPow({ ...vector, difficulty: zeroBits + 1 });
    expect(verdict).toEqual({ ok: false, reason: 'too_few_zero_bits', zeroBits });
  });

  it('counts leading zero bits big-endian across byte boundaries', () => {
    expect(countLeadingZeroBits(Uint8Array.from([0x80]))).toBe(0);
    expect(countLeadingZeroBits(Uint8Array.from([0x0f, 0xff]))).toBe(4);
    expect(countLeadingZeroBits(Uint8Array.from([0x00, 0x01]))).toBe(15);
    expect(countLeadingZeroBits(Uint8Array.from([0x00, 0x00]))).toBe(16);
  });
});
