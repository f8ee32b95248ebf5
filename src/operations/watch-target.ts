import { z } from 'zod';
import { resolveConfig, type ConfigInputs } from '../config.js';
import type { WatchTarget } from '../watch/index.js';
import type { OperationContext } from './define-operation.js';

/** The inputs every watch command shares. */
export const credentialsDirInput = z
  .string()
  .optional()
  .describe('Credentials directory of the inbox (default: AGENT_MAILBOX_CREDENTIALS_DIR, then the per-user config dir).');

export const wakeCommandInput = z
  .string()
  .optional()
  .describe(
    'Agent command to run when new mail arrived, e.g. \'claude -p {prompt} --allowedTools "mcp__agent-mailbox__jmap_request,mcp__agent-mailbox__help"\'. {prompt}, {digest} and {credentials_dir} are replaced shell-quoted; the prompt is also in env AGENT_MAILBOX_WAKE_PROMPT. [env AGENT_MAILBOX_WAKE_COMMAND]',
  );

/** The config inputs with this command's directory and wake command as flags (flag > env > default). */
export function watchConfigInputs(ctx: OperationContext, input: { credentials_dir?: string | undefined; wake_command?: string | undefined }): ConfigInputs {
  return {
    ...ctx.configInputs,
    flags: {
      ...ctx.configInputs.flags,
      ...(input.credentials_dir !== undefined ? { credentialsDir: input.credentials_dir } : {}),
      ...(input.wake_command !== undefined ? { wakeCommand: input.wake_command } : {}),
    },
  };
}

/** Where the job lives and what it runs, every setting read through the config table. */
export function watchTarget(ctx: OperationContext, input: { credentials_dir?: string | undefined }): WatchTarget & { wakeCommand?: string } {
  const config = resolveConfig(watchConfigInputs(ctx, input));
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
