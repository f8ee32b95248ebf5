import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from './json-file-store.js';

/** One sandbox inbox as the auth host knows it; the apiKey itself is never stored. */
export interface AccountRecord {
  username: string;
  address: string;
  /** SHA-256 of the apiKey, hex. A fast hash suffices: the key has 256 random bits (nothing to brute-force). */
  apiKeyHash: string;
  createdAt: string;
}

const accountsFileSchema = z.object({
  version: z.literal(1),
  accounts: z.array(
    z.object({
      username: z.string().min(1),
      address: z.string().min(3),
      apiKeyHash: z.string().regex(/^[0-9a-f]{64}$/),
      createdAt: z.string(),
    }),
  ),
});

/** Prefix of every sandbox apiKey, so a leaked one is recognisable (and redactable) by its shape. */
export const apiKeyPrefix = 'amk_';

/** Accounts by username and apiKey hash; persisted to `<dataDir>/accounts.json` when a dataDir is given. */
export class AccountStore {
  private readonly byUsername = new Map<string, AccountRecord>();
  private readonly byKeyHash = new Map<string, AccountRecord>();
  /** Names between "reserved" and "committed": the backend is creating their inbox. */
  private readonly reserved = new Set<string>();
  private writeChain: Promise<void> = Promise.resolve();

  private constructor(private readonly path: string | undefined) {}

  /** Opens the store, loading existing accounts from `dataDir`. */
  static async open(dataDir?: string): Promise<AccountStore> {
    const store = new AccountStore(dataDir === undefined ? undefined : join(dataDir, 'accounts.json'));
    const file = store.path === undefined ? undefined : await readJsonFile(store.path, accountsFileSchema);
    for (const record of file?.accounts ?? []) store.index(record);
    return store;
  }

  /** Whether a username is taken (or being signed up right now). */
  isTaken(username: string): boolean {
    return this.byUsername.has(username) || this.reserved.has(username);
  }

  /** Whether `address` is a sandbox inbox (case-insensitive, as mail routing is in practice). */
  hasAddress(address: string): boolean {
    const wanted = address.toLowerCase();
    for (const record of this.byUsername.values()) if (record.address.toLowerCase() === wanted) return true;
    return false;
  }

  /** The account an apiKey belongs to, compared by hash in constant time. */
  findByApiKey(apiKey: string): AccountRecord | undefined {
    const hash = hashApiKey(apiKey);
    const record = this.byKeyHash.get(hash);
    if (!record) return undefined;
    return timingSafeEqual(Buffer.from(record.apiKeyHash), Buffer.from(hash)) ? record : undefined;
  }

  /** Reserves a username synchronously, so two concurrent sign-ups cannot both get it. */
  reserve(username: string): boolean {
    if (this.isTaken(username)) return false;
    this.reserved.add(username);
    return true;
  }

  /** Releases a reservation whose inbox could not be created. */
  release(username: string): void {
    this.reserved.delete(username);
  }

  /** Turns a reservation into an account with a fresh apiKey, persists it, and returns the key once. */
  async commit(username: string, address: string): Promise<{ apiKey: string; record: AccountRecord }> {
    const apiKey = `${apiKeyPrefix}${randomBytes(32).toString('base64url')}`;
    const record: AccountRecord = {
      username,
      address,
      apiKeyHash: hashApiKey(apiKey),
      createdAt: new Date().toISOString(),
    };
    this.reserved.delete(username);
    this.index(record);
    await this.persist();
    return { apiKey, record };
  }

  private index(record: AccountRecord): void {
    this.byUsername.set(record.username, record);
    this.byKeyHash.set(record.apiKeyHash, record);
  }

  /** Writes are chained so two sign-ups never race each other's rename. */
  private persist(): Promise<void> {
    const path = this.path;
    if (path === undefined) return Promise.resolve();
    const write = async (): Promise<void> => {
      await writeJsonAtomic(path, { version: 1, accounts: [...this.byUsername.values()] });
    };
    this.writeChain = this.writeChain.then(write, write);
    return this.writeChain;
  }
}

/** SHA-256 hex of an apiKey. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
