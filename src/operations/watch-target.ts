import * as z from 'zod';
import { credentialsKindOf } from '../credentials/credentials-kind.js';
import type { WatchTarget } from '../watch/index.js';
import { commandConfig, type OperationContext } from './define-operation.js';

export const credentialsDirInput = () =>
  z.string().optional().describe('Credentials directory of the inbox; omit for the default.');

/** On a connected account: the inboxes whose daily job this is (default: the grant's default inbox). */
export const watchInboxesInput = () =>
  z
    .array(z.string())
    .optional()
    .describe('Connected accounts only: the inboxes (from list_inboxes); omit for the default.');

export const wakeCommandInput = () =>
  z
    .string()
    .optional()
    .describe(
      'Agent command to run when new mail arrived, e.g. \'claude -p {prompt} --allowedTools "mcp__agent-mailbox__jmap_request,mcp__agent-mailbox__help"\'. {prompt}, {digest} and {credentials_dir} are replaced shell-quoted; the prompt is also in env AGENT_MAILBOX_WAKE_PROMPT. [env AGENT_MAILBOX_WAKE_COMMAND]',
    );

/** The jobs a watch command is about: one per credentials directory, or per inbox named on a connected account. */
export async function watchTargets(
  ctx: OperationContext,
  input: { credentials_dir?: string | undefined; inbox?: string[] | undefined },
): Promise<Array<WatchTarget & { wakeCommand?: string }>> {
  const base = watchTarget(ctx, input);
  const wanted = input.inbox?.length ? input.inbox : [undefined];
  if (credentialsKindOf(base.credentialsDir) !== 'oauth') {
    // A proof-of-work directory has one inbox: a name given must be it.
    for (const name of input.inbox ?? [])
      await ctx.accounts
        .open(base.credentialsDir, { inbox: name })
        .inbox({ signal: ctx.signal, deadline: ctx.deadline });
    return [base];
  }
  const targets: Array<WatchTarget & { wakeCommand?: string }> = [];
  for (const name of wanted) {
    const identity = await ctx.accounts
      .open(base.credentialsDir, name === undefined ? {} : { inbox: name })
      .inbox({ signal: ctx.signal, deadline: ctx.deadline });
    if (targets.some((t) => t.inbox?.stateDir === identity.stateDir)) continue;
    targets.push({ ...base, inbox: { address: identity.address ?? identity.inboxId, stateDir: identity.stateDir } });
  }
  return targets;
}

/** Where the job lives and what it runs, every setting read through the config table. */
export function watchTarget(
  ctx: OperationContext,
  input: { credentials_dir?: string | undefined; wake_command?: string | undefined },
): WatchTarget & { wakeCommand?: string } {
  const config = commandConfig(ctx, input);
  return {
    credentialsDir: config.credentialsDir,
    env: ctx.configInputs.env ?? {},
    nodePath: ctx.install.nodePath,
    cliPath: ctx.install.cliPath,
    shellCommand: ctx.install.shellCommand,
    crontabBin: config.crontab,
    ...(config.wakeCommand ? { wakeCommand: config.wakeCommand } : {}),
  };
}
