import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MailboxError, inputRef } from '../errors.js';
import { rememberSecret } from '../redact.js';
import { isAlive } from './directory-lock.js';
import { oauthFiles, oauthGrantSchema, type StoredGrant } from './oauth-grant-files.js';
import { storedJsonOrUndefined } from './parse-stored-json.js';
import { parseTempName, readPrivateFile } from './secure-file.js';
import { storedCredentialsSchema, type StoredCredentials } from './stored-credentials.js';

/**
 * Finishes or clears writes a killed process left behind. A credentials temp may hold a new inbox's only apiKey: put in
 * place or kept visibly, never deleted unread. Token and state temps are caches holding JWTs: removed.
 */
export async function recoverInterruptedWrites(dir: string, notice: (message: string) => void): Promise<void> {
  for (const { path, target } of await abandonedTemps(dir)) {
    // An OAuth directory's grant has recovery of its own (recoverInterruptedGrantWrite): never removed here.
    if (target === 'oauth.json') continue;
    if (target !== 'credentials.json') {
      await rm(path, { force: true }).catch(() => undefined);
      continue;
    }
    await recoverCredentials(dir, path, notice);
  }
}

/** The temp files (tempPathFor) in `dir` whose writing process is gone, with the file each was for. */
async function abandonedTemps(dir: string): Promise<Array<{ path: string; target: string }>> {
  // No directory yet: nothing was left in it.
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.flatMap((name) => {
    const temp = parseTempName(name);
    return temp && !isAlive(temp.pid) ? [{ path: join(dir, name), target: temp.target }] : [];
  });
}

async function recoverCredentials(dir: string, tempPath: string, notice: (message: string) => void): Promise<void> {
  const target = join(dir, 'credentials.json');
  const parsed = parse(await readPrivateFile(tempPath));
  let currentText: string | undefined;
  let targetExists = true;
  try {
    currentText = await readPrivateFile(target);
    targetExists = currentText !== undefined;
  } catch {
    // There but unreadable (a link, a permission): it may hold a key, so it is never replaced.
  }
  const current = parse(currentText);
  if (!parsed) {
    if (current) {
      notice(
        `${tempPath} was left by an interrupted write and cannot be read as credentials; it was kept for you to inspect (credentials.json is intact).`,
      );
      return;
    }
    throw new MailboxError({
      code: 'credentials_corrupt',
      message: `An interrupted write left ${tempPath}, and it is not complete credentials; it may still hold the apiKey of an inbox created just before.`,
      hint: `Open ${tempPath}: if it contains an apiKey, register with that apiKey (${inputRef('api_key')}) to restore access; if not, delete the file and run the command again.`,
      details: { path: tempPath },
    });
  }
  rememberSecret(parsed.apiKey);
  if (!targetExists) {
    await rename(tempPath, target);
    notice(
      `Recovered the credentials of ${parsed.inbox ?? parsed.inboxId} from an interrupted write (${tempPath} → ${target}).`,
    );
    return;
  }
  if (current?.apiKey === parsed.apiKey) {
    await rm(tempPath, { force: true });
    return;
  }
  // A different key, or an unreadable credentials.json (it may hold a key): lose neither, keep the newer visibly.
  const kept = join(dir, `credentials.json.recovered-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await rename(tempPath, kept);
  notice(
    `An interrupted write left other credentials (${parsed.inbox ?? parsed.inboxId}); they were kept in ${kept}. credentials.json is unchanged.`,
  );
}

const parse = (text: string | undefined): StoredCredentials | undefined =>
  storedJsonOrUndefined(text, storedCredentialsSchema);

const parseGrant = (text: string | undefined): StoredGrant | undefined => storedJsonOrUndefined(text, oauthGrantSchema);

/**
 * An oauth.json temp may hold the only copy of the newest refresh token: put in place when complete and newer. Older or
 * partial copies and caches' temps are removed (a retired refresh token presented again revokes the grant).
 */
export async function recoverInterruptedGrantWrite(dir: string, notice: (message: string) => void): Promise<void> {
  const own = new Set<string>([oauthFiles.grant, oauthFiles.accessTokens, oauthFiles.inboxes, oauthFiles.renewal]);
  for (const { path, target } of await abandonedTemps(dir)) {
    if (!own.has(target)) continue;
    // Stryker disable next-line ConditionalExpression,BlockStatement: a cache's temp file never parses as a grant, so the grant branch below removes it all the same
    if (target !== oauthFiles.grant) {
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
