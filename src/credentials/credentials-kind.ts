import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MailboxError, inputRef } from '../errors.js';
import { oauthFiles } from './oauth-grant-files.js';

/** What a credentials directory holds: a proof-of-work inbox (credentials.json), a connected account (oauth.json). */
export type CredentialsKind = 'pow' | 'oauth' | 'none';

/** By the file that defines it (synchronous: a stat or two). */
export function credentialsKindOf(dir: string): CredentialsKind {
  if (existsSync(join(dir, 'credentials.json'))) return 'pow';
  if (existsSync(join(dir, oauthFiles.grant))) return 'oauth';
  return 'none';
}

const plainByte = /^[a-z0-9._@+-]$/;

/** An OAuth inbox's folder: its address lowercased, other bytes percent-encoded so none names a path outside. */
export function oauthInboxStateDir(credentialsDir: string, inboxAddress: string): string {
  const bytes = [...Buffer.from(inboxAddress.trim().toLowerCase(), 'utf8')];
  const encode = (b: number): string => `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  // A name of dots alone ("." or "..") would name the folder itself or its parent.
  const onlyDots = bytes.every((b) => b === 0x2e);
  const name =
    bytes
      .map((b) => (!onlyDots && plainByte.test(String.fromCharCode(b)) ? String.fromCharCode(b) : encode(b)))
      .join('') || '%00';
  return join(credentialsDir, oauthFiles.inboxFolders, name);
}

/** Neither kind of credentials ever goes over the other: the only copy of an apiKey, or a live grant. */
export function kindConflictError(dir: string, holds: 'pow' | 'oauth'): MailboxError {
  const [message, hint] =
    holds === 'pow'
      ? [
          `Refused: ${dir} holds a proof-of-work inbox (credentials.json with its apiKey, the only way back into it); a connected account never goes over it.`,
          `Connect the person's account into a directory of its own: ${inputRef('credentials_dir')} <another directory> (e.g. ${join(dir, '..', 'connected')}).`,
        ]
      : [
          `Refused: ${dir} holds a connected account (oauth.json, a grant of a person's inboxes); an inbox registered by proof of work never goes over it.`,
          `Register the agent's own inbox in a directory of its own with ${inputRef('credentials_dir')}; to end the connection first, the operator runs agent-mailbox disconnect --credentials-dir ${dir}.`,
        ];
  return new MailboxError({ code: 'credentials_exist', message, hint, details: { credentialsDir: dir, holds } });
}
