import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../auth/json-file-store.js';

/** The sandbox domain's DKIM key: what signs its mail, and the record that publishes it. */
export interface DomainKey {
  /** s= of the signatures; derived from the key, so a signature by an older key finds no key rather than a wrong one. */
  selector: string;
  privateKeyPem: string;
  /** The TXT record at `<selector>._domainkey.<domain>` (RFC 6376 §3.6.1, RFC 8463 §4.2). */
  record: string;
  /** a= of the signatures. */
  algorithm: 'ed25519-sha256';
}

const storedKeySchema = z.object({
  version: z.literal(1),
  privateKeyPem: z.string().startsWith('-----BEGIN PRIVATE KEY-----'),
});

/**
 * Loads the key from `<dir>/dkim-key.json`, or makes one (stored when `dir` is given). Ed25519
 * (RFC 8463): mailauth signs and verifies it, and a fresh key costs no measurable start-up time,
 * unlike RSA-2048 at every start of an in-memory sandbox.
 */
export async function loadOrCreateDomainKey(dir?: string): Promise<DomainKey> {
  const path = dir === undefined ? undefined : join(dir, 'dkim-key.json');
  const stored = path === undefined ? undefined : await readJsonFile(path, storedKeySchema);
  if (stored) return describe(createPrivateKey(stored.privateKeyPem));
  const { privateKey } = await promisify(generateKeyPair)('ed25519');
  const key = describe(privateKey);
  if (path !== undefined) await writeJsonAtomic(path, { version: 1, privateKeyPem: key.privateKeyPem });
  return key;
}

function describe(privateKey: KeyObject): DomainKey {
  // The last 32 octets of an Ed25519 SubjectPublicKeyInfo are the raw key DKIM publishes (RFC 8463 §4.2).
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    selector: `sandbox-${createHash('sha256').update(raw).digest('hex').slice(0, 8)}`,
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    record: `v=DKIM1; k=ed25519; p=${raw.toString('base64')}`,
    algorithm: 'ed25519-sha256',
  };
}
