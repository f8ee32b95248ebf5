import { resolve } from 'node:path';
import * as z from 'zod';
import { credentialsKindOf, oauthInboxStateDir } from '../../credentials/credentials-kind.js';
import { toMailboxError } from '../../errors.js';
import { commandConfig, defineLazyOperation, optionalSwitch, optionalText } from '../define-operation.js';
import { watchTarget } from '../watch.js';

export const disconnectOperation = defineLazyOperation({
  name: 'disconnect',
  title: "Disconnect a person's account",
  description:
    "Revoke the grant of an account connected with connect (the service ends it, access tokens included), then remove it from the credentials directory with its inboxes' state and daily jobs. Nothing is removed when the revocation fails.",
  schemas: () => ({
    input: z.object({
      credentials_dir: optionalText('Directory the account was connected into.'),
      local_only: optionalSwitch(
        'Remove the files without asking the service (when it cannot be reached); the person then revokes the connection in the dashboard.',
      ),
    }),
    output: z.looseObject({
      credentialsDir: z.string(),
      revoked: z.boolean(),
      inboxes: z.array(z.string()),
      next: z.array(z.string()),
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  doors: ['cli'],
  async run(input, ctx) {
    const config = commandConfig(ctx, input);
    const dir = resolve(config.credentialsDir);
    const { connectedInboxes, disconnectGrant } = await import('../../auth/oauth/grant-flows.js');
    const inboxes = credentialsKindOf(dir) === 'oauth' ? await connectedInboxes(dir) : [];
    const outcome = await disconnectGrant(
      dir,
      { deadline: ctx.deadline, log: ctx.log, signal: ctx.signal },
      { localOnly: input.local_only === true },
    );
    const next: string[] = [];
    if (inboxes.length > 0) {
      // The inboxes' daily jobs would only fail from now on: they go with the connection.
      const { removeWatch } = await import('../../watch/index.js');
      const base = watchTarget(ctx, { credentials_dir: dir });
      for (const inbox of inboxes)
        await removeWatch({
          ...base,
          inbox: { address: inbox.address, stateDir: oauthInboxStateDir(dir, inbox.address) },
        }).catch((error: unknown) => {
          next.push(
            `The daily job of ${inbox.address} could not be removed (${toMailboxError(error).message}); remove its line from the crontab by hand.`,
          );
        });
    }
    next.push(
      outcome.revoked
        ? 'The service ended the grant; connect again to use the account.'
        : 'The files are gone, but the grant is still active on the service: the person revokes it in the dashboard.',
    );
    return { ...outcome, next };
  },
});
