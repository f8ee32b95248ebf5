import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { rememberSecret } from '../redact.js';
import {
  accessTokensSchema,
  inboxListFileSchema,
  oauthFiles,
  oauthGrantSchema,
  renewalJournalSchema,
  type RenewalJournal,
  type StoredAccessTokens,
  type StoredGrant,
  type StoredInboxList,
} from './oauth-grant-files.js';
import { isAlive } from './directory-lock.js';
import { damagedFileError, parseStoredJson, storedJsonOrUndefined } from './parse-stored-json.js';
import { parseTempName, readPrivateFile, writeFileAtomic } from './secure-file.js';

/**
 * Reads and writes the files of an OAuth credentials directory. Callers hold the directory lock
 * around every write of the grant (connect, renewal, disconnect): a refresh token is presented only
 * by the process that holds the lock and has just read it here.
 */
export class OAuthGrantStore {
  private recovery: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    private readonly notice: (message: string) => void = () => undefined,
  ) {}

  /** Path of one of the directory's files. */
  path(file: Exclude<keyof typeof oauthFiles, 'inboxFolders'>): string {
    return join(this.dir, oauthFiles[file]);
  }

  /** oauth.json, or undefined when the directory holds no grant; an interrupted rotation is finished first. */
  async readGrant(): Promise<StoredGrant | undefined> {
    this.recovery ??= recoverInterruptedGrantWrite(this.dir, this.notice).catch((error: unknown) => {
      this.recovery = undefined;
      throw error;
    });
    await this.recovery;
    const grant = await readJson(this.path('grant'), oauthGrantSchema, grantCorruptHint);
    if (grant) {
      rememberSecret(grant.refreshToken);
      rememberSecret(grant.clientSecret);
    }
    return grant;
  }

  /** Replaces oauth.json atomically (temp file, fsync, rename, directory fsync). */
  async writeGrant(grant: StoredGrant): Promise<void> {
    const checked = oauthGrantSchema.parse(grant);
    rememberSecret(checked.refreshToken);
    rememberSecret(checked.clientSecret);
    await writeFileAtomic(this.path('grant'), `${JSON.stringify(checked, null, 2)}\n`);
  }

  /** The cached access tokens; a damaged cache counts as empty (it is renewable). */
  async readAccessTokens(): Promise<StoredAccessTokens | undefined> {
    const cached = await readCache(this.path('accessTokens'), accessTokensSchema);
    // Stryker disable next-line ArrayDeclaration: remembering a made-up string as a secret changes nothing a test of real output can see
    for (const entry of cached?.tokens ?? []) rememberSecret(entry.token);
    return cached;
  }

  /** Replaces the access token cache. */
  async writeAccessTokens(tokens: StoredAccessTokens): Promise<void> {
    for (const entry of tokens.tokens) rememberSecret(entry.token);
    await writeFileAtomic(this.path('accessTokens'), `${JSON.stringify(accessTokensSchema.parse(tokens))}\n`);
  }

  /** The last inbox list; a damaged one counts as absent (it is fetched again). */
  async readInboxList(): Promise<StoredInboxList | undefined> {
    return readCache(this.path('inboxes'), inboxListFileSchema);
  }

  /** Replaces the inbox list. */
  async writeInboxList(list: StoredInboxList): Promise<void> {
    await writeFileAtomic(this.path('inboxes'), `${JSON.stringify(inboxListFileSchema.parse(list), null, 2)}\n`);
  }

  /** The journal of a renewal whose answer was never stored, if any. */
  async readRenewalJournal(): Promise<RenewalJournal | undefined> {
    return readCache(this.path('renewal'), renewalJournalSchema);
  }

  /** Records that a refresh request is about to leave (durably, before it leaves). */
  async writeRenewalJournal(journal: RenewalJournal): Promise<void> {
    await writeFileAtomic(this.path('renewal'), `${JSON.stringify(journal)}\n`);
  }

  /** Clears the journal once the renewal's outcome is stored. */
  async clearRenewalJournal(): Promise<void> {
    await rm(this.path('renewal'), { force: true });
  }

  /** Removes the grant and its caches (disconnect); the inboxes' own folders are the caller's. */
  async removeGrantFiles(): Promise<void> {
    for (const file of ['accessTokens', 'renewal', 'inboxes', 'grant'] as const)
      await rm(this.path(file), { force: true });
  }
}

const grantCorruptHint =
  'The grant cannot be read, and a refresh token cannot be guessed: connect again (agent-mailbox connect --credentials-dir <this directory>) and remove this file once the new grant works.';

async function readJson<T extends z.ZodType>(path: string, schema: T, hint: string): Promise<z.infer<T> | undefined> {
  const text = await readPrivateFile(path);
  if (text === undefined) return undefined;
  const read = parseStoredJson(text, schema);
  if ('value' in read) return read.value;
  throw damagedFileError(path, read.problem, hint);
}

/** A cache file, or undefined when it is missing, unreadable or damaged: every cache is fetched again. */
async function readCache<T extends z.ZodType>(path: string, schema: T): Promise<z.infer<T> | undefined> {
  return storedJsonOrUndefined(await readPrivateFile(path).catch(() => undefined), schema);
}

const parseGrant = (text: string | undefined): StoredGrant | undefined => storedJsonOrUndefined(text, oauthGrantSchema);

/**
 * A process killed between writing a new oauth.json to its temp file and renaming it left the only
 * copy of the newest refresh token there (the server has already retired the previous one): that
 * copy is put in place when it is complete and newer than the file. Older or partial copies are
 * removed: presenting a retired refresh token would make the service revoke the whole grant.
 * Temp files of the caches are removed.
 */
export async function recoverInterruptedGrantWrite(dir: string, notice: (message: string) => void): Promise<void> {
  // No directory yet: nothing was left in it.
  const names = await readdir(dir).catch(() => [] as string[]);
  const own = new Set<string>([oauthFiles.grant, oauthFiles.accessTokens, oauthFiles.inboxes, oauthFiles.renewal]);
  for (const name of names) {
    const temp = parseTempName(name);
    if (!temp || !own.has(temp.target) || isAlive(temp.pid)) continue;
    const path = join(dir, name);
    // Stryker disable next-line ConditionalExpression,BlockStatement: a cache's temp file never parses as a grant, so the grant branch below removes it all the same
    if (temp.target !== oauthFiles.grant) {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: errors are ignored either way
      await rm(path, { force: true }).catch(() => undefined);
      continue;
    }
    const left = parseGrant(await readPrivateFile(path).catch(() => undefined));
    const current = parseGrant(await readPrivateFile(join(dir, oauthFiles.grant)).catch(() => undefined));
    const isNewer =
      left !== undefined &&
      (current === undefined ||
        left.connectedAt > current.connectedAt ||
        (left.connectedAt === current.connectedAt && left.generation > current.generation));
    if (isNewer) {
      rememberSecret(left.refreshToken);
      await rename(path, join(dir, oauthFiles.grant));
      notice(
        `Recovered the newest refresh token of ${dir} from a renewal that was interrupted before it was put in place.`,
      );
    } else {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the file was listed a moment ago; `force` only spares a race with another recovery
      await rm(path, { force: true });
    }
  }
}
