import * as z from 'zod';
import { defineLazyOperation, readsLocal, writesLocal, type OperationContext } from './define-operation.js';
import { loadHandlers } from './handlers/load.js';
import type { WatchStatus, WatchTarget } from '../watch/index.js';
import { credentialsDirInput, wakeCommandInput, watchInboxesInput, watchTargets } from './watch-target.js';

/** The watch code loads only when a watch command runs, not on every CLI start. */
const loadWatch = () => import('../watch/index.js');

const watchStatusOutput = z.looseObject({
  credentialsDir: z.string(),
  mechanism: z.enum(['crontab', 'launchd', 'task-scheduler', 'unavailable']),
  installed: z.boolean(),
  changed: z.boolean(),
  summary: z.string(),
  verify: z.array(z.string()),
  remove: z.string(),
  next: z.array(z.string()),
  /** watch_status only: the operator's rules in force for this inbox, in sentences. */
  policy: z.object({ rules: z.array(z.string()), readOnlyNow: z.boolean() }).optional(),
});

/** One report for several inboxes' jobs: the first's fields, every summary and next step, each under `inboxes`. */
async function forEachTarget<S extends WatchStatus>(
  ctx: OperationContext,
  input: Parameters<typeof watchTargets>[1],
  act: (target: WatchTarget) => Promise<S>,
): Promise<S & { inboxes?: S[] }> {
  const statuses: S[] = [];
  for (const target of await watchTargets(ctx, input)) statuses.push(await act(target));
  const [first, ...rest] = statuses;
  if (!first) throw new Error('no watch target');
  if (rest.length === 0) return first;
  return {
    ...first,
    installed: statuses.every((s) => s.installed),
    changed: statuses.some((s) => s.changed),
    summary: statuses.map((s) => `${s.inbox ?? s.credentialsDir}: ${s.summary}`).join(' '),
    verify: [...new Set(statuses.flatMap((s) => s.verify))],
    remove: statuses.map((s) => s.remove).join(' && '),
    next: [...new Set(statuses.flatMap((s) => s.next))],
    inboxes: statuses,
  };
}

export const watchStatusOperation = defineLazyOperation({
  name: 'watch_status',
  title: 'Daily watch job status',
  description:
    "Whether the daily 09:00 wake job is installed for an inbox, and the operator's rules in force (who you may write to, caps, what needs their yes). Changes nothing.",
  schemas: () => ({
    input: z.object({ credentials_dir: credentialsDirInput(), inbox: watchInboxesInput() }),
    output: watchStatusOutput,
  }),
  annotations: readsLocal,
  cli: { path: ['watch', 'status'], repeatable: ['inbox'] },
  async run(input, ctx) {
    const [{ watchStatus }, { describeInboxPolicy }] = await Promise.all([loadWatch(), loadHandlers()]);
    return forEachTarget(ctx, input, async (target) => ({
      ...(await watchStatus(target)),
      policy: await describeInboxPolicy(
        ctx,
        target.credentialsDir,
        target.inbox ? { inbox: target.inbox.address, stateDir: target.inbox.stateDir } : undefined,
      ),
    }));
  },
});

// Installing a job that runs a command is the operator's act: CLI only, so no mail can talk a model into it.
export const watchInstallOperation = defineLazyOperation({
  name: 'watch_install',
  title: 'Install the daily watch job',
  description:
    'Install (or refresh) the daily 09:00 job for this inbox: a crontab line, on macOS a LaunchAgent, on Windows a Task Scheduler task (on a connected account: its default inbox, or each one named with --inbox). Installing twice changes nothing.',
  schemas: () => ({
    input: z.object({
      credentials_dir: credentialsDirInput(),
      inbox: watchInboxesInput(),
      wake_command: wakeCommandInput(),
    }),
    output: watchStatusOutput,
  }),
  annotations: writesLocal,
  doors: ['cli'],
  cli: { path: ['watch', 'install'], repeatable: ['inbox'] },
  async run(input, ctx) {
    const { installWatch } = await loadWatch();
    return { ...(await forEachTarget(ctx, input, installWatch)) };
  },
});

export const watchRemoveOperation = defineLazyOperation({
  name: 'watch_remove',
  title: 'Remove the daily watch job',
  description: "Remove exactly this inbox's daily job; other crontab lines, LaunchAgents and tasks stay untouched.",
  schemas: () => ({
    input: z.object({ credentials_dir: credentialsDirInput(), inbox: watchInboxesInput() }),
    output: watchStatusOutput,
  }),
  annotations: { ...writesLocal, destructiveHint: true },
  doors: ['cli'],
  cli: { path: ['watch', 'remove'], repeatable: ['inbox'] },
  async run(input, ctx) {
    const { removeWatch } = await loadWatch();
    return { ...(await forEachTarget(ctx, input, removeWatch)) };
  },
});
