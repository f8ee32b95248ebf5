import { join } from 'node:path';
import type * as z from 'zod';
import { MailboxError, inputRef } from '../errors.js';
import { rm } from 'node:fs/promises';
import { decodeJwt } from 'jose/jwt/decode';
import { deepFreeze } from '../deep-freeze.js';
import { maskApiKey, rememberSecret } from '../redact.js';
import { withDirectoryLock, type LockOptions } from './directory-lock.js';
import { registeredSandbox } from './loopback-endpoints.js';
import { recoverInterruptedWrites } from './recover-interrupted-writes.js';
import {
  accountStateSchema,
  storedCredentialsSchema,
  type AccountState,
  type StoredCredentials,
} from './stored-credentials.js';
import { parseStoredJson } from './parse-stored-json.js';
import { readPrivateFile, writeFileAtomic } from './secure-file.js';

/** Spec §2.9's files, plus state. */
export const credentialFiles = {
  credentials: 'credentials.json',
  session: 'session.jwt',
  capability: 'capability.jwt',
  state: 'state.json',
} as const;

export type TokenKind = 'session' | 'capability';

const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The local part of a stored inbox id, which may already be a full address (spec §1.4 a). */
export function inboxLocalPart(inboxId: string): string {
  return (inboxId.split('@')[0] ?? inboxId).toLowerCase();
}

export function isSameInbox(a: Pick<StoredCredentials, 'inboxId'>, b: Pick<StoredCredentials, 'inboxId'>): boolean {
  return inboxLocalPart(a.inboxId) === inboxLocalPart(b.inboxId);
}

/** The refusal for replacing one inbox's credentials with another's; it leads with the irreversible loss (live-service.md bug 11). */
export function credentialsExistError(existing: StoredCredentials, dir: string, wanted: string): MailboxError {
  const stored = existing.inbox ?? existing.inboxId;
  const sandbox = registeredSandbox(existing);
  // A sandbox's inbox is still refused (--data-dir keeps it), but the way out is to move it aside.
  const sandboxNote = sandbox
    ? ` ${stored} is an inbox of a local sandbox (${sandbox.apiUrl ?? sandbox.authUrl}), not of the service.`
    : '';
  const sandboxHint = sandbox
    ? ` To free this directory for an inbox of the service, move the sandbox's credentials aside (e.g. rename ${dir} to ${dir}-sandbox) and register again.`
    : '';
  return new MailboxError({
    code: 'credentials_exist',
    message: `Refused: replacing the credentials in ${dir} would lose access to the inbox ${stored} forever (its apiKey ${maskApiKey(existing.apiKey)} is the only way back in, and it cannot be recovered). They belong to ${stored}, not ${wanted}.${sandboxNote}`,
    hint: `To use another inbox, give it its own directory with ${inputRef('credentials_dir')} (e.g. ${join(dir, '..', inboxLocalPart(wanted))}); to keep using ${stored}, register again with username ${inboxLocalPart(existing.inboxId)}.${sandboxHint}`,
    details: { credentialsDir: dir, storedInbox: stored, ...(sandbox ? { sandbox } : {}) },
  });
}

/** Reads and writes the files of one credentials directory; callers hold the directory lock around writes. */
export class CredentialStore {
  private recovery: Promise<void> | undefined;
  /** The inbox of credentials.json once read: tokens of any other inbox are discarded. */
  private inboxId: string | undefined;

  constructor(
    readonly dir: string,
    private readonly notice: (message: string) => void = () => undefined,
  ) {}

  path(file: keyof typeof credentialFiles): string {
    return join(this.dir, credentialFiles[file]);
  }

  /** The last value parsed per file, with its text, so an unchanged file is not parsed again; frozen, as shared. */
  private readonly parsed = new Map<string, { text: string; value: unknown }>();

  /** credentials.json, or undefined when there is none yet; a corrupt file is an error, never ignored. */
  async readCredentials(): Promise<StoredCredentials | undefined> {
    // Every command reads credentials first, so this is where an interrupted write is finished.
    this.recovery ??= recoverInterruptedWrites(this.dir, this.notice).catch((error: unknown) => {
      this.recovery = undefined;
      throw error;
    });
    await this.recovery;
    const path = this.path('credentials');
    const credentials = await this.readJson(path, storedCredentialsSchema);
    if (credentials) {
      rememberSecret(credentials.apiKey);
      this.inboxId = credentials.inboxId;
    }
    return credentials;
  }

  /** Refuses another inbox over the stored one; a changed rewrite keeps the old file as credentials.json.bak-<time>. */
  async writeCredentials(next: StoredCredentials): Promise<void> {
    const checked = storedCredentialsSchema.parse(next);
    rememberSecret(checked.apiKey);
    const path = this.path('credentials');
    const existingText = await readPrivateFile(path);
    const text = `${JSON.stringify(checked, null, 2)}\n`;
    if (existingText !== undefined) {
      const existing = this.parseJson(path, existingText, storedCredentialsSchema);
      if (!isSameInbox(existing, checked))
        throw credentialsExistError(existing, this.dir, checked.inbox ?? checked.inboxId);
      if (existingText === text) return;
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      await writeFileAtomic(`${path}.bak-${stamp}`, existingText);
    }
    await writeFileAtomic(path, text);
  }

  /** A stored token, or undefined when missing or unreadable (tokens are renewable caches). */
  async readToken(kind: TokenKind): Promise<string | undefined> {
    const text = (await readPrivateFile(this.path(kind)))?.trim();
    if (!text || !jwtShape.test(text)) return undefined;
    rememberSecret(text);
    if (this.inboxId !== undefined && !tokenBelongsTo(text, this.inboxId)) {
      // Another inbox's token would fail every call until it expired: drop it so a fresh one is minted.
      this.notice(
        `${this.path(kind)} belonged to another inbox than ${this.inboxId}; it was discarded and will be renewed.`,
      );
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the file was read a moment ago; `force` only spares a race with another process removing it
      await rm(this.path(kind), { force: true });
      return undefined;
    }
    return text;
  }

  async writeToken(kind: TokenKind, jwt: string): Promise<void> {
    rememberSecret(jwt);
    await writeFileAtomic(this.path(kind), `${jwt}\n`);
  }

  async readState(): Promise<AccountState> {
    return (await this.readJson(this.path('state'), accountStateSchema)) ?? {};
  }

  async writeState(state: AccountState): Promise<void> {
    await writeFileAtomic(this.path('state'), `${JSON.stringify(accountStateSchema.parse(state), null, 2)}\n`);
  }

  /** Changes state.json under the directory's state lock, so concurrent changes never lose one another. */
  updateState(mutate: (state: AccountState) => AccountState, lock: LockOptions): Promise<AccountState> {
    return withDirectoryLock(
      this.dir,
      'state',
      async () => {
        const next = mutate(await this.readState());
        await this.writeState(next);
        return next;
      },
      lock,
    );
  }

  private async readJson<T extends z.ZodType>(path: string, schema: T): Promise<z.infer<T> | undefined> {
    const text = await readPrivateFile(path);
    if (text === undefined) return undefined;
    const last = this.parsed.get(path);
    if (last?.text === text) return last.value as z.infer<T>;
    const value = deepFreeze(this.parseJson(path, text, schema));
    this.parsed.set(path, { text, value });
    return value;
  }

  private parseJson<T extends z.ZodType>(path: string, text: string, schema: T): z.infer<T> {
    const hint = path.endsWith(credentialFiles.credentials)
      ? 'Restore it from a credentials.json.bak-* file in the same directory or from your own backup (it holds the apiKey, the only way into the inbox); do not delete it unless the inbox is no longer needed.'
      : 'This file holds only caches and cursors: fix it or delete it, then run the command again.';
    return parseStoredJson(text, schema, path, hint);
  }
}

/** False only when the token names an inbox (`inboxId` claim) and it is not this one. */
function tokenBelongsTo(jwt: string, inboxId: string): boolean {
  try {
    const claim = decodeJwt(jwt).inboxId;
    // Stryker disable next-line ConditionalExpression: without the type test a claim that is not a string throws in inboxLocalPart, and the catch below gives the same answer
    return typeof claim !== 'string' || inboxLocalPart(claim) === inboxLocalPart(inboxId);
  } catch {
    return true; // unreadable tokens are judged by the server, as before
  }
}
