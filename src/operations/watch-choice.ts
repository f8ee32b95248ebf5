import * as z from 'zod';
import { toMailboxError } from '../errors.js';
import type { WatchMode } from '../auth/account-registry.js';
import { resolve } from 'node:path';
import { shellQuote } from '../render/shell-quote.js';
import type { OperationContext } from './define-operation.js';
import { watchTarget } from './watch-target.js';

export const watchReportSchema = () =>
  z.object({
    mode: z.enum(['scheduled', 'on-demand']),
    installed: z.boolean(),
    summary: z.string(),
    verify: z.array(z.string()),
    remove: z.string().optional(),
    next: z.array(z.string()),
  });
export type WatchReport = z.infer<ReturnType<typeof watchReportSchema>>;

/**
 * Installs the daily job for `scheduled`, and for `on-demand` only reports a job left from before.
 * A failure to install never undoes a registration: the inbox exists and its key is stored, so the
 * report says what failed and how to install the job later.
 */
export async function applyWatchChoice(
  credentialsDir: string,
  mode: WatchMode,
  ctx: OperationContext,
  wakeCommand: string | undefined,
): Promise<WatchReport> {
  const dirFlag = `--credentials-dir ${shellQuote(resolve(credentialsDir))}`;
  try {
    // Loaded here so that register's start does not pay for the watch code (node-cron, crontab).
    const { installWatch, removeWatchHint, watchStatus } = await import('../watch/index.js');
    const target = watchTarget(ctx, { credentials_dir: credentialsDir, wake_command: wakeCommand || undefined });
    const remove = removeWatchHint(credentialsDir, ctx.install.shellCommand);
    if (mode === 'scheduled') {
      const { installed, summary, verify, next } = await installWatch(target);
      return { mode, installed, summary, verify, remove, next };
    }
    const status = await watchStatus(target);
    if (status.installed) {
      const summary = `on-demand: no job installed now, but a daily job from before still exists for this directory. ${status.summary}`;
      return { mode, installed: true, summary, verify: status.verify, remove, next: [] };
    }
    // No job to look for in a job table: only the status command, which also shows the operator's rules.
    const verify = [`${ctx.install.shellCommand} watch status ${dirFlag}`];
    return {
      mode,
      installed: false,
      summary: 'on-demand: no scheduled job; read the inbox when asked.',
      verify,
      next: [],
    };
  } catch (error) {
    const failure = toMailboxError(error);
    return {
      mode,
      installed: false,
      summary: `The inbox is registered, but the daily job could not be set up: ${failure.message}`,
      verify: [],
      next: [failure.hint, `${ctx.install.shellCommand} watch install ${dirFlag}`],
    };
  }
}
