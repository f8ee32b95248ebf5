import { readFileSync } from 'node:fs';
import scryptJs from 'scrypt-js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MailboxError } from '../../../src/errors.js';
import { computePowDigest, countLeadingZeroBits } from '../../../src/pow/pow-digest.js';
import type { PowProgress } from '../../../src/pow/pow-progress.js';
import { solvePow } from '../../../src/pow/solve-pow.js';
import { scryptParams } from '../../../src/wire-constants.js';

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
  JSON.parse(readFileSync(new URL('../../fixtures/pow-vectors.json', import.meta.url), 'utf8')),
);

// Solving a vector costs one scrypt (~16 MiB, tens of ms of a core) per nonce tried. The published
// vectors and the edge cases (difficulty 0, a non-ASCII challenge) are solved in full; the others
// are checked by their digest alone, which spares ~300 hashes of the suite's CPU for no lost case.
const solvedInFull = vectors.filter(
  (v) => v.challenge.startsWith('fixture-') || v.difficulty === 0 || /[^\x20-\x7e]/.test(v.challenge),
);
const checkedByDigest = vectors.filter((v) => !solvedInFull.includes(v));

describe('solvePow', () => {
  it('solves in full the three published vectors and both edge cases', () => {
    expect(solvedInFull.map((v) => v.challenge).sort()).toEqual([
      'défi-🚀-ünïcode',
      'fixture-alpha',
      'fixture-beta',
      'fixture-gamma',
      'zero-difficulty',
    ]);
    expect(checkedByDigest.length).toBeGreaterThan(0);
  });

  it.each(checkedByDigest)(
    'gives the digest of $challenge at its nonce, with $difficulty leading zero bits',
    async (vector) => {
      const digest = await computePowDigest(vector.challenge, vector.nonce, vector.salt);
      expect(digest.toString('hex')).toBe(vector.powHex);
      expect(countLeadingZeroBits(digest)).toBeGreaterThanOrEqual(vector.difficulty);
    },
  );

  it.each(solvedInFull)(
    'finds the smallest nonce and its digest for $challenge at difficulty $difficulty',
    async (vector) => {
      const solution = await solvePow({
        challenge: vector.challenge,
        difficulty: vector.difficulty,
        salt: vector.salt,
      });
      expect(solution.nonce).toBe(vector.nonce);
      expect(solution.powHex).toBe(vector.powHex);
      expect(solution.tried).toBeGreaterThanOrEqual(Number(vector.nonce) + 1);
    },
  );

  it('returns the same smallest nonce with one worker as with four', async () => {
    // Nonce 39: well past four workers' first round, so the race for the smallest one is real.
    const vector = vectors.find((v) => v.challenge === 'défi-🚀-ünïcode')!;
    const [one, four] = await Promise.all([
      solvePow({ challenge: vector.challenge, difficulty: vector.difficulty, salt: vector.salt, workers: 1 }),
      solvePow({ challenge: vector.challenge, difficulty: vector.difficulty, salt: vector.salt, workers: 4 }),
    ]);
    expect(one.nonce).toBe(vector.nonce);
    expect(four.nonce).toBe(vector.nonce);
  });

  it('agrees with scrypt-js, an independent implementation, on vector digests', async () => {
    const { N, r, p, dkLen } = scryptParams;
    for (const vector of vectors.filter((v) => ['fixture-alpha', 'défi-🚀-ünïcode'].includes(v.challenge))) {
      const password = new TextEncoder().encode(`${vector.challenge}:${vector.nonce}`);
      const salt = new TextEncoder().encode(vector.salt);
      const oracle = Buffer.from(await scryptJs.scrypt(password, salt, N, r, p, dkLen)).toString('hex');
      expect(oracle).toBe(vector.powHex);
      expect((await computePowDigest(vector.challenge, vector.nonce, vector.salt)).toString('hex')).toBe(oracle);
    }
  });

  it('counts leading zero bits big-endian across byte boundaries', () => {
    expect(countLeadingZeroBits(Uint8Array.from([0x80]))).toBe(0);
    expect(countLeadingZeroBits(Uint8Array.from([0x00, 0x01]))).toBe(15);
    expect(countLeadingZeroBits(Uint8Array.from([0x0f, 0xff]))).toBe(4);
    expect(countLeadingZeroBits(Uint8Array.from([0, 0]))).toBe(16);
  });

  it('rejects with pow_cancelled within a second of the signal and stops its workers', async () => {
    const controller = new AbortController();
    const running = solvePow({ challenge: 'never-solved', difficulty: 30, salt: 'salt', signal: controller.signal });
    const startedWork = Date.now();
    // Let the workers start hashing before cancelling.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelledAt = Date.now();
    controller.abort();
    const error = await running.catch((e: unknown) => e);
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    expect(error).toBeInstanceOf(MailboxError);
    expect((error as MailboxError).code).toBe('pow_cancelled');
    expect(Date.now() - startedWork).toBeLessThan(5000);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const error = await solvePow({ challenge: 'x', difficulty: 4, salt: 's', signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect((error as MailboxError).code).toBe('pow_cancelled');
  });

  it('reports progress at least every 500 ms with tried, expected, rate and ETA', async () => {
    const reports: { at: number; progress: PowProgress }[] = [];
    const controller = new AbortController();
    // One worker: progress reporting does not depend on the count, and a second would only burn a core.
    const running = solvePow({
      challenge: 'progress-check',
      difficulty: 30,
      salt: 'salt',
      workers: 1,
      signal: controller.signal,
      onProgress: (progress) => {
        reports.push({ at: Date.now(), progress });
        // Five reports, and at least one finished pass of the lanes (a loaded machine may delay the first).
        if (reports.length >= 5 && progress.tried > 0) controller.abort();
      },
    });
    await expect(running).rejects.toMatchObject({ code: 'pow_cancelled' });
    expect(reports.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < reports.length; i += 1) {
      expect(reports[i]!.at - reports[i - 1]!.at).toBeLessThan(600);
      expect(reports[i]!.progress.tried).toBeGreaterThanOrEqual(reports[i - 1]!.progress.tried);
    }
    const last = reports.at(-1)!.progress;
    expect(last.expected).toBe(2 ** 30);
    expect(last.tried).toBeGreaterThan(0);
    expect(last.rate).toBeGreaterThan(0);
    expect(last.etaSeconds).toBeCloseTo(last.expected / last.rate);
    expect(last.chanceByNow).toBeGreaterThan(0);
  });

  it('refuses a difficulty outside the supported range', async () => {
    await expect(solvePow({ challenge: 'x', difficulty: 99, salt: 's' })).rejects.toMatchObject({
      code: 'bad_response',
    });
  });
});
