import { credentialsKindOf } from '../../credentials/credentials-kind.js';
import { MailboxError } from '../../errors.js';
import type { PolicyPaths } from '../../policy/policy-layers.js';
import { commandConfig, optionalSwitch, optionalText, type OperationContext } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';

/** Which layer a `policy` command acts on: the user's (`--user`) or one inbox's (`--credentials-dir`, else the default inbox). */

export const policyTargetInput = () => ({
  user: optionalSwitch('The user layer: binds every inbox of this OS user, ones registered later included.'),
  credentials_dir: optionalText(
    'The inbox whose own layer to use (its credentials directory); default: the default inbox.',
  ),
  inbox: optionalText(
    "Connected account only: the inbox (address or accountId from list_inboxes) whose own layer to use; default: the account's default inbox.",
  ),
});

/** The file a change writes, the layers that apply (for show) and, for an inbox, its credentials directory. */
export async function policyTarget(
  ctx: OperationContext,
  input: { user?: boolean | undefined; credentials_dir?: string | undefined; inbox?: string | undefined },
): Promise<{ layer: 'user' | 'inbox'; path: string; paths: PolicyPaths; credentialsDir?: string }> {
  if (input.user === true && (input.credentials_dir !== undefined || input.inbox !== undefined))
    throw new MailboxError({
      code: 'usage',
      message: 'Give --user or an inbox (--credentials-dir, --inbox), not both.',
      hint: '--user for every inbox of this user, --credentials-dir for one inbox.',
    });
  const config = commandConfig(ctx, input);
  const { layerPath, policyPaths, guardedInbox } = await loadHandlers();
  if (input.user === true) {
    const paths = policyPaths({ userConfigDir: config.userConfigDir });
    return { layer: 'user', path: paths.user, paths };
  }
  const account = ctx.accounts.open(config.credentialsDir, { inbox: input.inbox });
  // A connected account keeps rules per inbox, where the guard reads them: an inbox that cannot be named
  // fails the command (a rule elsewhere would bind nothing). A proof-of-work directory is its inbox's folder.
  const identity = await account
    .inbox({ signal: ctx.signal, deadline: ctx.deadline })
    .then(guardedInbox, (error: unknown) => {
      if (credentialsKindOf(account.dir) === 'oauth') throw error;
      return undefined;
    });
  const paths = policyPaths({ userConfigDir: config.userConfigDir, inboxDir: identity?.stateDir ?? account.dir });
  return { layer: 'inbox', path: layerPath(paths, 'inbox') as string, paths, credentialsDir: account.dir };
}
