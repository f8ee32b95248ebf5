import { performance } from 'node:perf_hooks';
import { wordInputs } from '../../../src/render/describe-next.js';
import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { computePowDigest, countLeadingZeroBits } from '../../../src/pow/pow-digest.js';
import { solvePow } from '../../../src/pow/solve-pow.js';
import { decimalNoncePattern, powHexPattern, verifyPow } from '../../../sandbox/src/auth/verify-pow.js';

/** The solver's and the sandbox verifier's edges: which difficulties and shapes they accept, and difficulty 0 without workers. */

describe('solvePow at its edges', () => {
  it('refuses a difficulty that is not a whole number from 0 to 30', async () => {
    for (const difficulty of [2.5, -1, 31, Number.NaN]) {
      const error = (await solvePow({ challenge: 'c', difficulty, salt: 's' }).catch(
        (e: unknown) => e,
      )) as MailboxError;
      expect(error, String(difficulty)).toBeInstanceOf(MailboxError);
      expect(error.code).toBe('bad_response');
      expect(error.message).toBe(`The auth host asked for a proof of work of difficulty ${difficulty}, outside 0–30.`);
      expect(wordInputs(error.hint, 'cli')).toMatch(/--auth-url/);
    }
  });

  it('answers difficulty 0 with nonce 0 and its digest, in one hash', async () => {
    const before = performance.now();
    const solution = await solvePow({ challenge: 'zero', difficulty: 0, salt: 'salt' });
    const took = performance.now() - before;
    expect(solution).toMatchObject({
      nonce: '0',
      tried: 1,
      engine: 'node-crypto',
      powHex: (await computePowDigest('zero', 0, 'salt')).toString('hex'),
    });
    expect(solution.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(solution.elapsedMs).toBeLessThanOrEqual(took);
  });

  it('is cancelled by a signal that fires during the one hash of difficulty 0', async () => {
    const controller = new AbortController();
    const running = solvePow({ challenge: 'zero', difficulty: 0, salt: 'salt', signal: controller.signal });
    // The hash runs on the libuv pool, so it cannot have finished before this line.
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'pow_cancelled' });
  });

  it('does not start when the call is already cancelled', async () => {
    for (const difficulty of [0, 4]) {
      const controller = new AbortController();
      controller.abort();
      await expect(
        solvePow({ challenge: 'c', difficulty, salt: 's', signal: controller.signal }),
      ).rejects.toMatchObject({ code: 'pow_cancelled' });
    }
  });

  it('tells whether a digest meets a difficulty by its leading zero bits', () => {
    const digest = `0f${'ff'.repeat(63)}`;
    const zeroBits = countLeadingZeroBits(Buffer.from(digest, 'hex'));
    expect(zeroBits >= 4).toBe(true);
    expect(zeroBits >= 5).toBe(false);
    expect(zeroBits >= 3).toBe(true);
  });
});

describe('the sandbox verifier at its edges', () => {
  it('takes a nonce of 1 to 20 decimal digits only', () => {
    for (const nonce of ['0', '7', '12345678901234567890']) expect(decimalNoncePattern.test(nonce), nonce).toBe(true);
    for (const nonce of ['', '123456789012345678901', '-1', '1e3', ' 1', '1 ', 'x1', '1x', '0x10'])
      expect(decimalNoncePattern.test(nonce), nonce).toBe(false);
  });

  it('takes a digest of exactly 64 bytes in hex, either case', () => {
    expect(powHexPattern.test('ab'.repeat(64))).toBe(true);
    expect(powHexPattern.test('AB'.repeat(64))).toBe(true);
    for (const hex of [
      'ab'.repeat(63),
      `${'ab'.repeat(64)}a`,
      `x${'ab'.repeat(64)}`,
      `${'ab'.repeat(64)}x`,
      'zz'.repeat(64),
      'a',
    ])
      expect(powHexPattern.test(hex), hex.slice(0, 8)).toBe(false);
  });

  it('calls a digest of another length a mismatch, not an error', async () => {
    const digest = await computePowDigest('c', '1', 's');
    expect(
      await verifyPow({
        challenge: 'c',
        nonce: '1',
        salt: 's',
        difficulty: 0,
        powHex: digest.subarray(0, 32).toString('hex'),
      }),
    ).toMatchObject({ ok: false, reason: 'digest_mismatch' });
    expect(
      await verifyPow({ challenge: 'c', nonce: '1', salt: 's', difficulty: 0, powHex: digest.toString('hex') }),
    ).toEqual({ ok: true });
  });
});
