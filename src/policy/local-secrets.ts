import { join, resolve } from 'node:path';
import { credentialFiles } from '../credentials/credential-store.js';
import { oauthFiles } from '../credentials/oauth-grant-files.js';
import { readPrivateFile } from '../credentials/secure-file.js';
import { rememberSecret } from '../redact.js';
import { knownInboxDirs, subdirectories } from './records/inbox-dirs.js';
import { isRecord } from '../is-record.js';

/**
 * Every secret of this OS user's credentials and grant files the tool can find, made known to the secret scan
 * (and the redactor) by value: apiKeys, refresh tokens, client secrets, access tokens that are not JWTs (the scan
 * finds those by structure). Looked for in the directory in use, the configured default, the directories below it,
 * the user's config folder and every directory `register` listed, so another inbox's secret is known even when
 * this process never loaded it. Nothing is written here: a check runs on every batch.
 */

const jwtLike = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./;

async function readJson(path: string): Promise<Record<string, unknown>> {
  try {
    // Stryker disable next-line StringLiteral: a missing file's empty text fails to parse and lands in the catch, as empty as '{}'
    const parsed: unknown = JSON.parse((await readPrivateFile(path)) ?? '{}');
    return isRecord(parsed) ? parsed : {};
  } catch {
    // A damaged or linked file: the tool refuses to use it elsewhere, and it holds nothing to learn here.
    return {};
  }
}

async function readText(path: string): Promise<string> {
  return (await readPrivateFile(path).catch(() => undefined))?.trim() ?? '';
}

export async function secretsOfDir(dir: string): Promise<string[]> {
  const [credentials, grant, tokens, session, capability] = await Promise.all([
    readJson(join(dir, credentialFiles.credentials)),
    readJson(join(dir, oauthFiles.grant)),
    readJson(join(dir, oauthFiles.accessTokens)),
    readText(join(dir, credentialFiles.session)),
    readText(join(dir, credentialFiles.capability)),
  ]);
  const held = Array.isArray(tokens.tokens)
    ? tokens.tokens.map((entry) => (isRecord(entry) ? entry.token : undefined))
    : [];
  return [credentials.apiKey, grant.refreshToken, grant.clientSecret, ...held, session, capability].filter(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
}

/** How long one look stays good: a send costs no directory walk, and a new inbox is known within seconds. */
export const lookValidMs = 10_000;
const lastLook = new Map<string, { at: number; secrets: string[] }>();

/** Finds and remembers the secrets; `inUse` is the credentials directory of the call. */
export async function rememberLocalSecrets(options: {
  inUse: string;
  defaultDir: string | undefined;
  userConfigDir: string;
  now?: () => number;
}): Promise<void> {
  const inUse = resolve(options.inUse);
  const now = (options.now ?? Date.now)();
  const key = JSON.stringify([inUse, options.defaultDir, options.userConfigDir]);
  const last = lastLook.get(key);
  if (last !== undefined && now - last.at >= 0 && now - last.at < lookValidMs) {
    // Remembered again: the redactor may have been emptied since (a new in-process run).
    for (const secret of last.secrets) rememberSecret(secret);
    return;
  }
  const configured = [options.defaultDir, options.userConfigDir].filter((dir): dir is string => Boolean(dir));
  const roots = [...new Set(configured.map((dir) => resolve(dir)))];
  const dirs = new Set([
    ...roots,
    ...(await Promise.all(roots.map(subdirectories))).flat(),
    inUse,
    // A list of registered directories that cannot be read adds none: the scan still has the rest.
    // Stryker disable next-line ArrayDeclaration: a made-up relative directory holds no credentials, like none at all
    ...(await knownInboxDirs(resolve(options.userConfigDir)).catch(() => [])),
  ]);
  // Tokens are left to the scan's structural match: the redactor keeps only the newest few, and
  // a crowd of other directories' tokens must not push out the ones this process is using.
  const secrets = (await Promise.all([...dirs].map(secretsOfDir))).flat().filter((secret) => !jwtLike.test(secret));
  for (const secret of secrets) rememberSecret(secret);
  lastLook.set(key, { at: now, secrets });
}
