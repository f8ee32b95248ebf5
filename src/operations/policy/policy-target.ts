import { z } from 'zod';
import { resolveConfig } from '../../config.js';
import { MailboxError } from '../../errors.js';
import { inboxStateDir } from '../../policy/records/inbox-state-dir.js';
import { layerPath, policyPaths, type PolicyPaths } from '../../policy/policy-layers.js';
import type { OperationContext } from '../define-operation.js';

/** Which layer a `policy` command acts on: the user's (`--user`) or one inbox's (`--credentials-dir`, else the default inbox). */

export const policyTargetInput = {
  user: z.boolean().optional().describe('The user layer: binds every inbox of this OS user, ones registered later included.'),
  credentials_dir: z.string().optional().describe('The inbox whose own layer to use (its credentials directory); default: the default inbox.'),
};

export interface PolicyTarget {
  layer: 'user' | 'inbox';
  /** The file a change writes. */
  path: string;
  /** The layers that apply to the target (for show): machine and user, plus the inbox's. */
  paths: PolicyPaths;
  /** The inbox's credentials directory, when the target is an inbox. */
  credentialsDir?: string;
}

/** Resolves the target from the flags; both at once is a usage error. */
export async function policyTarget(ctx: OperationContext, input: { user?: boolean | undefined; credentials_dir?: string | undefined }): Promise<PolicyTarget> {
  if (input.user === true && input.credentials_dir !== undefined) {
    throw new MailboxError({ code: 'usage', message: 'Give --user or --credentials-dir, not both.', hint: '--user for every inbox of this user, --credentials-dir for one inbox.' });
  }
  const config = resolveConfig({ ...ctx.configInputs, flags: { ...ctx.configInputs.flags, ...(input.credentials_dir !== undefined ? { credentialsDir: input.credentials_dir } : {}) } });
  if (input.user === true) {
    const paths = policyPaths({ userConfigDir: config.userConfigDir });
    return { layer: 'user', path: paths.user, paths };
  }
  const account = ctx.accounts.open(config.credentialsDir);
  const inbox = await account.credentials().then(
    (stored) => stored.inbox ?? stored.accountId,
    () => undefined,
  );
  const paths = policyPaths({ userConfigDir: config.userConfigDir, inboxDir: inboxStateDir(account.dir, inbox) });
  return { layer: 'inbox', path: layerPath(paths, 'inbox') as string, paths, credentialsDir: account.dir };
}
