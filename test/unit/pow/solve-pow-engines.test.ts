import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultWorkerCount } from '../../../src/pow/default-worker-count.js';
import { solvePow, workerMemoryBytes } from '../../../src/pow/solve-pow.js';
import { scryptParams } from '../../../src/wire-constants.js';

const { vectors } = z
  .object({
    vectors: z.array(
      z.object({
        challenge: z.string(),
        difficulty: z.number(),
        nonce: z.string(),
        powHex: z.string(),
        salt: z.string(),
      }),
    ),
  })
  .parse(JSON.parse(readFileSync(new URL('../../fixtures/pow-vectors.json', import.meta.url), 'utf8')));
const alpha = vectors.find((v) => v.challenge === 'fixture-alpha')!;
const MiB = 1024 * 1024;

describe('the proof-of-work engines', () => {
  it('hash with the SIMD kernel by default where WebAssembly SIMD runs', async () => {
    const solution = await solvePow({
      challenge: alpha.challenge,
      difficulty: alpha.difficulty,
      salt: alpha.salt,
      workers: 1,
    });
    expect(solution).toMatchObject({ engine: 'wasm-simd', nonce: alpha.nonce, powHex: alpha.powHex });
    // One pass hashes four nonces, so a hit at nonce 4 comes from the second pass.
    expect(solution.tried).toBe(8);
  });

  it("find the same smallest nonce with node:crypto's scrypt when asked for it", async () => {
    const solution = await solvePow({
      challenge: alpha.challenge,
      difficulty: alpha.difficulty,
      salt: alpha.salt,
      workers: 1,
      engine: 'node-crypto',
    });
    expect(solution).toMatchObject({ engine: 'node-crypto', nonce: alpha.nonce, powHex: alpha.powHex, tried: 5 });
  });

  it('count on each worker at least the memory its hashes take', () => {
    // scrypt's V array is 128·N·r bytes; a kernel pass holds one per lane, four lanes.
    const perHash = 128 * scryptParams.N * scryptParams.r;
    expect(workerMemoryBytes['node-crypto']).toBeGreaterThanOrEqual(perHash);
    expect(workerMemoryBytes['wasm-simd']).toBeGreaterThanOrEqual(4 * perHash);
  });

  it('start one worker per core while half the free memory holds them, and never none', () => {
    const kernelWorker = workerMemoryBytes['wasm-simd'];
    expect(defaultWorkerCount(2, 8192 * MiB, kernelWorker)).toBe(2);
    expect(defaultWorkerCount(64, 8192 * MiB, kernelWorker)).toBe(Math.floor((4096 * MiB) / kernelWorker));
    expect(defaultWorkerCount(64, 8192 * MiB, workerMemoryBytes['node-crypto'])).toBe(64);
    expect(defaultWorkerCount(8, 10 * MiB, kernelWorker)).toBe(1);
  });
});
