import * as z from 'zod';
import { credentialsKindOf } from '../credentials/credentials-kind.js';
import {
  commandConfig,
  defineLazyOperation,
  optionalText,
  readsLocal,
  streamsOf,
  writesLocal,
  type OperationContext,
} from './define-operation.js';
import { loadHandlers } from './handlers/load.js';
import type { WakeResult, WatchStatus, WatchTarget } from '../watch/index.js';

/** The watch code (node-cron, crontab) loads only when a watch command runs, not on every CLI start. */
const loadWatch = () => import('../watch/index.js');

type JobTarget = WatchTarget & { wakeCommand?: string };

export const credentialsDirInput = () => optionalText('Credentials directory of the inbox; omit for the default.');

/** On a connected account: the inboxes whose daily job this is (default: the grant's default inbox). */
export const watchInboxesInput = () =>
  z
    .array(z.string())
    .optional()
    .describe('Connected accounts only: the inboxes (from list_inboxes); omit for the default.');

export const wakeCommandInput = () =>
  optionalText(
    'Agent command to run when new mail arrived, e.g. \'claude -p {prompt} --allowedTools "mcp__agent-mailbox__jmap_request,mcp__agent-mailbox__help"\'. {prompt}, {digest} and {credentials_dir} are replaced shell-quoted; the prompt is also in env AGENT_MAILBOX_WAKE_PROMPT. [env AGENT_MAILBOX_WAKE_COMMAND]',
  );

/** The jobs a watch command is about: one per credentials directory, or per inbox named on a connected account. */
export async function watchTargets(
  ctx: OperationContext,
  input: { credentials_dir?: string | undefined; inbox?: string[] | undefined },
): Promise<JobTarget[]> {
  const base = watchTarget(ctx, input);
  const identityOf = (inbox: string | undefined) =>
    ctx.accounts.open(base.credentialsDir, { inbox }).inbox({ signal: ctx.signal, deadline: ctx.deadline });
  if (credentialsKindOf(base.credentialsDir) !== 'oauth') {
    // A proof-of-work directory has one inbox: a name given must be it.
    for (const name of input.inbox ?? []) await identityOf(name);
    return [base];
  }
  const targets: JobTarget[] = [];
  for (const name of input.inbox?.length ? input.inbox : [undefined]) {
    const identity = await identityOf(name);
    if (targets.some((t) => t.inbox?.stateDir === identity.stateDir)) continue;
    targets.push({ ...base, inbox: { address: identity.address ?? identity.inboxId, stateDir: identity.stateDir } });
  }
  return targets;
}

/** Where the job lives and what it runs, every setting read through the config table. */
export function watchTarget(ctx: OperationContext, input: Parameters<typeof commandConfig>[1]): JobTarget {
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

const watchStatusOperation = defineLazyOperation({
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
const watchInstallOperation = defineLazyOperation({
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
  run: async (input, ctx) => ({ ...(await forEachTarget(ctx, input, (await loadWatch()).installWatch)) }),
});

const watchRemoveOperation = defineLazyOperation({
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
  run: async (input, ctx) => ({ ...(await forEachTarget(ctx, input, (await loadWatch()).removeWatch)) }),
});

/** `wake` (what the daily job runs) and `watch run` (the foreground scheduler): CLI only, they start the operator's agent command. */

const wakeInboxInput = optionalText(
  "Connected account only: the inbox to check (address or accountId); default: the account's default inbox.",
);

async function wakeOnce(
  input: { credentials_dir?: string | undefined; inbox?: string | undefined; wake_command?: string | undefined },
  ctx: OperationContext,
): Promise<WakeResult & { at: string }> {
  const config = commandConfig(ctx, input);
  const { wake } = await loadWatch();
  const result = await wake({
    credentialsDir: config.credentialsDir,
    // Read-only: on a connected account the wake (and the agent it starts) get only mail.read tokens.
    account: ctx.accounts.open(config.credentialsDir, { inbox: input.inbox, readOnly: true }),
    env: ctx.configInputs.env ?? {},
    log: ctx.log,
    signal: ctx.signal,
    deadline: ctx.deadline,
    agentOutput: streamsOf(ctx, 'wake').stderr,
    ...(config.wakeCommand ? { wakeCommand: config.wakeCommand } : {}),
  });
  return { at: new Date().toISOString(), ...result };
}

const wakeOperation = defineLazyOperation({
  name: 'wake',
  title: 'Wake on new mail',
  description:
    'Check for new mail since the last successful wake, write the digest, and start the configured agent only if there is new mail (run by the daily job).',
  schemas: () => ({
    input: z.object({
      credentials_dir: credentialsDirInput(),
      inbox: wakeInboxInput,
      wake_command: wakeCommandInput(),
    }),
    output: z.looseObject({ at: z.string(), stateAdvanced: z.boolean(), mode: z.string(), summary: z.string() }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  doors: ['cli'],
  cli: { logLevel: 'info' },
  // A wake that did not advance the state failed (the job retries tomorrow); a skipped one did not.
  present: (result) => ({ lead: [], isError: !(result.stateAdvanced || result.mode === 'skipped') }),
  run: async (input, ctx) => ({ ...(await wakeOnce(input, ctx)) }),
});

const watchRunOperation = defineLazyOperation({
  name: 'watch_run',
  title: 'Run the watch in the foreground',
  description:
    'Where there is no crontab: stay in the foreground and run the wake every day at 09:00 while running. Stop with Ctrl-C or SIGTERM.',
  schemas: () => ({
    input: z.object({
      credentials_dir: credentialsDirInput(),
      inbox: wakeInboxInput,
      wake_command: wakeCommandInput(),
      // Tests use a near-future expression; production stays `0 9 * * *`.
      schedule: optionalText('Cron expression (testing only).'),
    }),
    output: z.object({ fired: z.number(), failed: z.number() }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  doors: ['cli'],
  cli: { path: ['watch', 'run'], hidden: ['schedule'], selfReporting: true, logLevel: 'info' },
  async run(input, ctx) {
    const dir = commandConfig(ctx, input).credentialsDir;
    const streams = streamsOf(ctx, 'watch run');
    const { runWatchDaemon, watchMarker } = await loadWatch();
    const outcome = await runWatchDaemon({
      name: watchMarker(input.inbox === undefined ? dir : `${dir}#${input.inbox}`),
      signal: ctx.signal,
      log: ctx.log,
      ...(input.schedule ? { schedule: input.schedule } : {}),
      onReady: (next) =>
        streams.stderr.write(
          `agent-mailbox watch: running for ${dir}${input.inbox === undefined ? '' : ` (${input.inbox})`}; next wake ${next ? next.toString() : 'unknown'}. Stop with Ctrl-C.\n`,
        ),
      fire: async () => {
        // One JSON line per wake, so a supervisor (or a test) can follow along.
        streams.stdout.write(
          `${JSON.stringify(await wakeOnce(input, { ...ctx, deadline: ctx.deadline.restarted() }))}\n`,
        );
      },
    });
    streams.stderr.write(`agent-mailbox watch: stopped after ${outcome.fired} wake(s).\n`);
    return outcome;
  },
});

/** The watch commands of the operations table, in help order. */
export const watchOperations = [
  watchStatusOperation,
  watchInstallOperation,
  watchRemoveOperation,
  watchRunOperation,
  wakeOperation,
];
