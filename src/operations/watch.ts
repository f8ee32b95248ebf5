import { z } from 'zod';
import { defineOperation } from './define-operation.js';
import { describeInboxPolicy } from './policy/describe-inbox-policy.js';
import { credentialsDirInput, wakeCommandInput, watchTarget } from './watch-target.js';

/** `watch status|install|remove`: the daily crontab job of one inbox. */

/** The watch code loads only when a watch command runs, not on every CLI start. */
const loadWatch = () => import('../watch/index.js');

const watchStatusOutput = z.looseObject({
  credentialsDir: z.string(),
  mechanism: z.enum(['crontab', 'unavailable']),
  installed: z.boolean(),
  changed: z.boolean(),
  summary: z.string(),
  verify: z.array(z.string()),
  remove: z.string(),
  next: z.array(z.string()),
  /** watch_status only: the operator's rules in force for this inbox, in sentences. */
  policy: z.object({ rules: z.array(z.string()), readOnlyNow: z.boolean() }).optional(),
});

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const editsCrontab = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const watchStatusOperation = defineOperation({
  name: 'watch_status',
  title: 'Daily watch job status',
  description:
    'Show whether the daily 09:00 job that wakes an agent when new mail arrived is installed for an inbox, when it runs next, and how to verify and remove it; and the operator\'s rules in force for this inbox (who you may write to, caps, what needs their yes), so you can plan a send. Changes nothing; the job and the rules are the operator\'s decision, on their command line.',
  input: z.object({ credentials_dir: credentialsDirInput }),
  output: watchStatusOutput,
  annotations: readOnly,
  cli: { path: ['watch', 'status'] },
  async run(input, ctx) {
    const { watchStatus } = await loadWatch();
    const target = watchTarget(ctx, input);
    return { ...(await watchStatus(target)), policy: await describeInboxPolicy(ctx, target.credentialsDir) };
  },
});

// Installing a job that runs a command is the operator's act: CLI only, so no mail can talk a model into it.
export const watchInstallOperation = defineOperation({
  name: 'watch_install',
  title: 'Install the daily watch job',
  description: 'Install (or refresh) the daily 09:00 crontab job for this inbox. Installing twice changes nothing.',
  input: z.object({ credentials_dir: credentialsDirInput, wake_command: wakeCommandInput }),
  output: watchStatusOutput,
  annotations: editsCrontab,
  doors: ['cli'],
  cli: { path: ['watch', 'install'] },
  async run(input, ctx) {
    const { installWatch } = await loadWatch();
    return { ...(await installWatch(watchTarget(ctx, input))) };
  },
});

export const watchRemoveOperation = defineOperation({
  name: 'watch_remove',
  title: 'Remove the daily watch job',
  description: 'Remove exactly this inbox\'s daily job; other crontab lines stay untouched.',
  input: z.object({ credentials_dir: credentialsDirInput }),
  output: watchStatusOutput,
  annotations: { ...editsCrontab, destructiveHint: true },
  doors: ['cli'],
  cli: { path: ['watch', 'remove'] },
  async run(input, ctx) {
    const { removeWatch } = await loadWatch();
    return { ...(await removeWatch(watchTarget(ctx, input))) };
  },
});
