import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../auth/json-file-store.js';

/** The SASL password of every inbox, keyed by address: Cyrus knows the users, the gateway needs their passwords. */
const accountsFileShape = z.object({ version: z.literal(1), passwords: z.record(z.string(), z.string()) });

/** Where a kept Cyrus instance lives inside the sandbox's mail data dir, and its account file. */
export function cyrusDataPaths(mailDir: string): { base: string; accountsFile: string } {
  return { base: join(mailDir, 'cyrus'), accountsFile: join(mailDir, 'cyrus-accounts.json') };
}

/**
 * Makes the data dir and its mail dir traversable (0711) for user cyrus, which runs the
 * instance kept below them; nothing in them becomes listable or readable to others by this.
 */
export async function openDataDirToCyrus(mailDir: string): Promise<void> {
  await mkdir(mailDir, { recursive: true, mode: 0o700 });
  for (const dir of [dirname(mailDir), mailDir]) await chmod(dir, 0o711);
}

/** Passwords saved by an earlier run (empty when none). */
export async function readCyrusAccounts(file: string): Promise<Map<string, string>> {
  const saved = await readJsonFile(file, accountsFileShape);
  return new Map(Object.entries(saved?.passwords ?? {}));
}

/** Saves the passwords (0600, atomically). */
export function writeCyrusAccounts(file: string, passwords: ReadonlyMap<string, string>): Promise<void> {
  return writeJsonAtomic(file, { version: 1, passwords: Object.fromEntries(passwords) });
}
