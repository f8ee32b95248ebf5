import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { credentialsKindOf } from '../../credentials/credentials-kind.js';
import { withDirectoryLock, type LockOptions } from '../../credentials/directory-lock.js';
import { oauthFiles, type KnownInbox } from '../../credentials/oauth-grant-files.js';
import { OAuthGrantStore } from '../../credentials/oauth-grant-store.js';
import { MailboxError, inputRef } from '../../errors.js';
import type { OAuthHttp } from './oauth-http.js';
import { revokeGrant } from './oauth-protocol.js';

interface DisconnectOutcome {
  credentialsDir: string;
  /** False with --local-only: the person revokes the grant in the dashboard. */
  revoked: boolean;
  /** Whose folders were removed. */
  inboxes: string[];
}

/** The inboxes a connected directory knows, for the caller to clear their jobs before the files go. */
export async function connectedInboxes(dir: string): Promise<KnownInbox[]> {
  return (await new OAuthGrantStore(dir).readInboxList())?.inboxes ?? [];
}

/** `disconnect`: revokes the grant (RFC 7009), then removes the files, so a failed revocation can be retried. */
export async function disconnectGrant(
  dir: string,
  http: OAuthHttp,
  options: { localOnly: boolean; lock?: LockOptions },
): Promise<DisconnectOutcome> {
  const kind = credentialsKindOf(dir);
  if (kind === 'pow')
    throw new MailboxError({
      code: 'invalid_input',
      message: `${dir} holds an inbox registered by proof of work, not a connected account; disconnect ends connections only.`,
      hint: `Nothing was changed. That inbox's apiKey is in ${join(dir, 'credentials.json')}; to stop using it, remove its daily job (watch remove) and keep or delete the directory yourself.`,
    });
  if (kind === 'none')
    throw new MailboxError({
      code: 'credentials_missing',
      message: `${dir} holds no connected account (no oauth.json).`,
      hint: `Give the ${inputRef('credentials_dir')} the account was connected into.`,
      details: { credentialsDir: dir },
    });
  const store = new OAuthGrantStore(dir, (message) => http.log.warn(message));
  return withDirectoryLock(
    dir,
    'oauth',
    async () => {
      const grant = await store.readGrant().catch(() => undefined);
      const inboxes = (await store.readInboxList())?.inboxes.map((inbox) => inbox.address) ?? [];
      if (!options.localOnly) {
        if (!grant)
          throw new MailboxError({
            code: 'credentials_corrupt',
            message: `${join(dir, oauthFiles.grant)} cannot be read, so the grant cannot be revoked from here.`,
            hint: "The person revokes the connection in the service's dashboard; then disconnect --local-only removes the files.",
          });
        await revokeGrant(grant, http);
      }
      await rm(join(dir, oauthFiles.inboxFolders), { recursive: true, force: true });
      await store.removeGrantFiles();
      return { credentialsDir: dir, revoked: !options.localOnly, inboxes };
    },
    options.lock ?? {},
  );
}
