import { access, realpath } from 'node:fs/promises';
import { dirname, relative, resolve, isAbsolute, join, sep } from 'node:path';
import { oauthFiles } from '../credentials/oauth-grant-files.js';
import { MailboxError } from '../errors.js';

/**
 * Files the model names (attachments, `ops_file`) are never read from a credentials directory (configured, or
 * above the file holding one), nor attachments from outside the operator's directories. Links are resolved
 * first; refusals name the path only.
 */

interface NamedFileRules {
  purpose: 'attachment' | 'ops_file';
  /** Credentials directories known to this call (the configured default, the one in use). */
  credentialsDirs: readonly string[];
  /** The operator's attachment directories (each applies); only for attachments. */
  attachFrom?: readonly { dir: string; from: string }[];
}

/** Whether `path` is `dir` or lies below it (a name that merely starts with `..`, such as `..token`, is below it). */
function isInsideDir(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

const credentialsFileNames = ['credentials.json', oauthFiles.grant, oauthFiles.accessTokens] as const;

async function holdsCredentials(dir: string): Promise<boolean> {
  const found = await Promise.all(
    credentialsFileNames.map((name) =>
      access(join(dir, name)).then(
        () => true,
        // Stryker disable next-line ArrowFunction: undefined is not true either; only `includes(true)` reads it
        () => false,
      ),
    ),
  );
  return found.includes(true);
}

async function realOrResolved(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/** Throws unless the file may be read for its purpose; returns its real path (missing files pass: reading them fails later, with no content). */
export async function checkNamedFile(given: string, rules: NamedFileRules): Promise<string> {
  const path = await realOrResolved(resolve(given));
  const dirs = await Promise.all(rules.credentialsDirs.map(realOrResolved));
  let holder = dirs.find((dir) => isInsideDir(path, dir));
  for (let dir = dirname(path); holder === undefined; dir = dirname(dir)) {
    if (await holdsCredentials(dir)) holder = dir;
    if (dirname(dir) === dir) break;
  }
  if (holder !== undefined)
    throw new MailboxError({
      code: rules.purpose === 'attachment' ? 'attachment_invalid' : 'ops_invalid',
      message: `${given} lies in a credentials directory (${holder}); files there are never read for a request. Nothing was sent.`,
      hint:
        rules.purpose === 'attachment'
          ? 'Attach a file from elsewhere; credentials never travel by mail.'
          : 'Keep ops files outside credentials directories.',
    });
  if (rules.purpose === 'attachment')
    for (const { dir, from } of rules.attachFrom ?? []) {
      if (isInsideDir(path, await realOrResolved(dir))) continue;
      throw new MailboxError({
        code: 'policy_refused',
        message: `Not sent: your operator's policy (${from} layer) allows attachments only from ${dir}, and ${given} is not there.`,
        hint: "This rule is your operator's. Attach a file from that directory, or ask your operator.",
        details: { rule: { layer: from, rule: 'send.attachFrom' }, path: given },
      });
    }
  return path;
}
