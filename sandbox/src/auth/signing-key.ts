import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from './json-file-store.js';

/** The sandbox's one Ed25519 key: signs challenge, session and capability JWTs alike. */
export interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public half as served at /.well-known/jwks.json. */
  publicJwk: JWK & { kid: string; alg: 'EdDSA'; use: 'sig' };
  kid: string;
}

export const signingAlgorithm = 'EdDSA';

const storedKeySchema = z.object({
  version: z.literal(1),
  privateJwk: z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), d: z.string() }),
});

/** Loads the key from `<dataDir>/signing-key.json`, or makes one (and stores it when a dataDir is given). */
export async function loadOrCreateSigningKey(dataDir?: string): Promise<SigningKey> {
  const path = dataDir === undefined ? undefined : join(dataDir, 'signing-key.json');
  const stored = path === undefined ? undefined : await readJsonFile(path, storedKeySchema);
  if (stored) {
    const { d: _secret, ...publicJwk } = stored.privateJwk;
    const privateKey = await importJWK(stored.privateJwk, signingAlgorithm);
    const publicKey = await importJWK(publicJwk, signingAlgorithm);
    return describe(privateKey as CryptoKey, publicKey as CryptoKey);
  }
  const pair = await generateKeyPair(signingAlgorithm, { extractable: true });
  if (path !== undefined) {
    const privateJwk = await exportJWK(pair.privateKey);
    await writeJsonAtomic(path, { version: 1, privateJwk });
  }
  return describe(pair.privateKey, pair.publicKey);
}

async function describe(privateKey: CryptoKey, publicKey: CryptoKey): Promise<SigningKey> {
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { privateKey, publicKey, kid, publicJwk: { ...jwk, kid, alg: 'EdDSA', use: 'sig' } };
}
