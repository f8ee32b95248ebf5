import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { romixKernel } from '../../../src/pow/romix-kernel.js';
import { createScryptLanes, type ScryptCost, type ScryptLanes } from '../../../src/pow/scrypt-lanes.js';
import { scryptParams } from '../../../src/wire-constants.js';

const kernel = romixKernel();
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

const lanesFor = (() => {
  const made = new Map<string, ScryptLanes>();
  return (cost: ScryptCost): ScryptLanes => {
    const key = `${cost.N}/${cost.r}/${cost.p}`;
    if (!made.has(key)) made.set(key, createScryptLanes(kernel!, cost, pbkdf2Sync));
    return made.get(key)!;
  };
})();

const native = (password: Uint8Array, salt: Uint8Array, cost: ScryptCost, dkLen: number): string =>
  hex(scryptSync(password, salt, dkLen, { ...cost, maxmem: 256 * cost.N * cost.r * cost.p + 1024 * 1024 }));

/** A small seeded generator (xorshift32): a failing input can be made again from the seed in the message. */
function generator(seed: number): (below: number) => number {
  let state = seed || 1;
  return (below) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
}

describe('the SIMD scrypt lanes', () => {
  it('run on this Node (WebAssembly SIMD is available)', () => {
    expect(kernel).toBeDefined();
  });

  // RFC 7914 §12; the fourth vector (N = 2^20) needs four 1 GiB V arrays, over WebAssembly's 4 GiB.
  it.each([
    {
      P: '',
      S: '',
      N: 16,
      r: 1,
      p: 1,
      dk: '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
    },
    {
      P: 'password',
      S: 'NaCl',
      N: 1024,
      r: 8,
      p: 16,
      dk: 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
    },
    {
      P: 'pleaseletmein',
      S: 'SodiumChloride',
      N: 16384,
      r: 8,
      p: 1,
      dk: '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
    },
  ])('give RFC 7914 test vector N=$N r=$r p=$p for "$P"/"$S"', ({ P, S, N, r, p, dk }) => {
    expect(hex(lanesFor({ N, r, p }).hash([utf8(P)], utf8(S), 64)[0]!)).toBe(dk);
  });

  it('refuse a cost whose four V arrays would not fit in WebAssembly memory, and a cost scrypt does not define', () => {
    expect(() => createScryptLanes(kernel!, { N: 1048576, r: 8, p: 1 }, pbkdf2Sync)).toThrow(
      /over WebAssembly's 4 GiB/,
    );
    expect(() => createScryptLanes(kernel!, { N: 1000, r: 8, p: 1 }, pbkdf2Sync)).toThrow(/power of two/);
    expect(() => createScryptLanes(kernel!, { N: 16, r: 0, p: 1 }, pbkdf2Sync)).toThrow(/power of two/);
  });

  it("give every proof-of-work vector's digest at its nonce, hashed four to a pass", () => {
    const file = z.object({
      vectors: z.array(z.object({ challenge: z.string(), nonce: z.string(), powHex: z.string(), salt: z.string() })),
    });
    const { vectors } = file.parse(
      JSON.parse(readFileSync(new URL('../../fixtures/pow-vectors.json', import.meta.url), 'utf8')),
    );
    const lanes = lanesFor(scryptParams);
    for (const salt of new Set(vectors.map((v) => v.salt))) {
      const group = vectors.filter((v) => v.salt === salt);
      const digests = lanes.hash(
        group.map((v) => utf8(`${v.challenge}:${v.nonce}`)),
        utf8(salt),
        scryptParams.dkLen,
      );
      expect(digests.map(hex)).toEqual(group.map((v) => v.powHex));
    }
  });

  it('agree with node:crypto on 1,000 random passwords, salts, costs and lengths', () => {
    const seed = randomBytes(4).readUInt32LE();
    const next = generator(seed);
    const bytes = (count: number): Buffer => Buffer.from(Array.from({ length: count }, () => next(256)));
    // Small costs for most (every r from 1 to 4, p up to 3, N up to 256) so the batch takes a few
    // seconds; eight inputs at the service's cost, passes of four lanes like the solver's.
    const cases: { cost: ScryptCost; count: number }[] = [{ cost: scryptParams, count: 8 }];
    for (let i = 0; i < 12; i += 1)
      cases.push({ cost: { N: 2 ** (1 + next(8)), r: 1 + (i % 4), p: 1 + next(3) }, count: 83 });
    let checked = 0;
    for (const { cost, count } of cases) {
      const salt = bytes(next(40));
      const dkLen = 1 + next(100);
      const passwords = Array.from({ length: count }, () => bytes(next(80)));
      const digests = lanesFor(cost).hash(passwords, salt, dkLen);
      passwords.forEach((password, i) => {
        expect(hex(digests[i]!), `seed ${seed}, N=${cost.N} r=${cost.r} p=${cost.p}, input ${i}`).toBe(
          native(password, salt, cost, dkLen),
        );
      });
      checked += count;
    }
    expect(checked).toBe(1004);
  });
});
