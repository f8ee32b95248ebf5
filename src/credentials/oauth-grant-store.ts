import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type * as z from 'zod';
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
import { parseStoredJson, storedJsonOrUndefined } from './parse-stored-json.js';
import { recoverInterruptedGrantWrite } from './recover-interrupted-writes.js';
import { readPrivateFile, writeFileAtomic } from './secure-file.js';

/** An OAuth directory's files; callers hold the directory lock around every write of the grant. */
export class OAuthGrantStore {
  private recovery: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    private readonly notice: (message: string) => void = () => undefined,
  ) {}

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
    const text = await readPrivateFile(this.path('grant'));
    const grant =
      text === undefined ? undefined : parseStoredJson(text, oauthGrantSchema, this.path('grant'), grantCorruptHint);
    if (grant) {
      rememberSecret(grant.refreshToken);
      rememberSecret(grant.clientSecret);
    }
    return grant;
  }

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

  async writeAccessTokens(tokens: StoredAccessTokens): Promise<void> {
    for (const entry of tokens.tokens) rememberSecret(entry.token);
    await writeFileAtomic(this.path('accessTokens'), `${JSON.stringify(accessTokensSchema.parse(tokens))}\n`);
  }

  /** The last inbox list; a damaged one counts as absent (it is fetched again). */
  async readInboxList(): Promise<StoredInboxList | undefined> {
    return readCache(this.path('inboxes'), inboxListFileSchema);
  }

  async writeInboxList(list: StoredInboxList): Promise<void> {
    await writeFileAtomic(this.path('inboxes'), `${JSON.stringify(inboxListFileSchema.parse(list), null, 2)}\n`);
  }

  /** The journal of a renewal whose answer was never stored, if any. */
  async readRenewalJournal(): Promise<RenewalJournal | undefined> {
    return readCache(this.path('renewal'), renewalJournalSchema);
  }

  async writeRenewalJournal(journal: RenewalJournal): Promise<void> {
    await writeFileAtomic(this.path('renewal'), `${JSON.stringify(journal)}\n`);
  }

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

/** A cache file, or undefined when it is missing, unreadable or damaged: every cache is fetched again. */
async function readCache<T extends z.ZodType>(path: string, schema: T): Promise<z.infer<T> | undefined> {
  return storedJsonOrUndefined(await readPrivateFile(path).catch(() => undefined), schema);
}
