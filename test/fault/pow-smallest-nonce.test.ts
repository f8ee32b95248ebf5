import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { solvePow, type PowEngine } from '../../src/pow/solve-pow.js';

/**
 * At a low difficulty many nonces solve, so several workers (and several lanes of one kernel pass)
 * find answers at the same moment and report them in any order. The answer must still be the
 * smallest solving nonce, the one a serial search finds: the sandbox and the service accept any
 * solution, but the solver promises a deterministic one (README, "the smallest nonce is found").
 * The oracle here is node:crypto's scrypt called directly, one nonce after another.
 */

const salt = 'salt';

function zeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

/** The smallest nonce with `difficulty` leading zero bits, and every solving nonce below `upTo`. */
function serialSearch(
  challenge: string,
  difficulty: number,
  upTo: number,
): { smallest: number; powHex: string; solving: number[] } {
  const solving: number[] = [];
  const digests = new Map<number, string>();
  for (let nonce = 0; nonce < upTo; nonce += 1) {
    const digest = scryptSync(Buffer.from(`${challenge}:${nonce}`, 'utf8'), Buffer.from(salt, 'utf8'), 64, {
      N: 16384,
      r: 8,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    });
    if (zeroBits(digest) >= difficulty) {
      solving.push(nonce);
      digests.set(nonce, digest.toString('hex'));
    }
  }
  const smallest = solving[0]!;
  return { smallest, powHex: digests.get(smallest)!, solving };
}

interface Race {
  challenge: string;
  difficulty: number;
  engine: PowEngine;
  workers: number;
}

// Chosen by the serial search: each has two or more solving nonces among those the workers take first.
const races: Race[] = [
  { challenge: 'several-at-once', difficulty: 1, engine: 'wasm-simd', workers: 1 },
  { challenge: 'several-at-once', difficulty: 1, engine: 'node-crypto', workers: 4 },
  { challenge: 'race-3', difficulty: 1, engine: 'node-crypto', workers: 4 },
  { challenge: 'race-5', difficulty: 1, engine: 'wasm-simd', workers: 2 },
  { challenge: 'race-3', difficulty: 1, engine: 'wasm-simd', workers: 2 },
];

describe('several workers reporting solutions at once', () => {
  it.each(races)(
    '$challenge at difficulty $difficulty, $workers $engine worker(s): the smallest nonce wins',
    async (race) => {
      const firstTaken = race.engine === 'wasm-simd' ? 4 * race.workers : race.workers;
      const oracle = serialSearch(race.challenge, race.difficulty, firstTaken);
      expect(oracle.solving.length, 'the race is real: several of the first nonces taken solve').toBeGreaterThanOrEqual(
        2,
      );
      expect(oracle.smallest, 'and the smallest is not simply nonce 0').toBeGreaterThan(0);

      const solution = await solvePow({
        challenge: race.challenge,
        difficulty: race.difficulty,
        salt,
        engine: race.engine,
        workers: race.workers,
      });
      expect(solution.nonce).toBe(String(oracle.smallest));
      expect(solution.powHex).toBe(oracle.powHex);
      expect(solution.engine).toBe(race.engine);
      expect(solution.tried).toBeGreaterThanOrEqual(oracle.smallest + 1);
    },
  );
});
