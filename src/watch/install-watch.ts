import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sandboxOfDirectory } from '../credentials/loopback-endpoints.js';
import { crontabJob } from './crontab-entries.js';
import { proposeWakeCommand } from './propose-wake-command.js';
import { shellQuote } from '../render/shell-quote.js';
import { wakePrompt } from './wake-prompt.js';
import { dailySchedule, nextDailyRun, watchMarker } from './watch-marker.js';
import { nonEmpty, readWatchSettings, watchPaths, writeWatchSettings } from './watch-settings.js';
import { launchAgentJob } from './schedulers/launch-agent.js';
import { taskSchedulerJob } from './schedulers/task-scheduler.js';
import type { JobView, ScheduledJob, SchedulerKind } from './schedulers/scheduler.js';

/** Where the job lives and what it runs; every path ends up absolute in the scheduler's entry. */
export interface WatchTarget {
  credentialsDir: string;
  /** One inbox of a connected account: its address (the wake's --inbox) and the folder of its job's files. */
  inbox?: { address: string; stateDir: string };
  env: Readonly<Record<string, string | undefined>>;
  /** Absolute node binary and CLI entry (dist/bin.js). */
  nodePath: string;
  cliPath: string;
  /** The crontab program (setting `crontab`); any but `crontab` chooses cron. */
  crontabBin: string;
  /** Whose scheduler holds the job (default: this platform's); launchctl and schtasks are found on `env.PATH`. */
  platform?: NodeJS.Platform;
  /** The user id of the LaunchAgent's gui domain (default: this process's). */
  uid?: number;
  /** How the operator runs this CLI at a shell, for the commands we suggest. */
  shellCommand?: string;
  now?: Date;
}

export interface InstallWatchOptions extends WatchTarget {
  /** The operator's agent command (setting `wakeCommand`, resolved by the caller); else the one stored before. */
  wakeCommand?: string;
}

/** The job as its scheduler holds it, and what the operator does next. */
export type WatchStatus = Awaited<ReturnType<typeof describe>>;

/** The command that removes the job of a credentials directory (or of one inbox of a connected account). */
export function removeWatchHint(credentialsDir: string, shellCommand = 'agent-mailbox', inbox?: string): string {
  return `${shellCommand} watch remove --credentials-dir ${shellQuote(resolve(credentialsDir))}${inboxArg(inbox)}`;
}

function inboxArg(inbox: string | undefined): string {
  return inbox === undefined ? '' : ` --inbox ${shellQuote(inbox)}`;
}

function jobDir(target: WatchTarget): string {
  return target.inbox?.stateDir ?? resolve(target.credentialsDir);
}

/** Installs (or refreshes) the daily job of a credentials directory; idempotent. */
export async function installWatch(options: InstallWatchOptions): Promise<WatchStatus> {
  const stored = await readWatchSettings(jobDir(options));
  const wakeCommand = nonEmpty(options.wakeCommand) ?? stored.wakeCommand;
  const path = nonEmpty(options.env.PATH) ?? stored.path;
  const updatedAt = (options.now ?? new Date()).toISOString();
  await writeWatchSettings(jobDir(options), { ...stored, wakeCommand, path, updatedAt });
  const job = jobOf(options);
  const changed = await job.install();
  return describe(options, await job.look(), changed);
}

/** Removes exactly this directory's job; other crontab lines, LaunchAgents and tasks stay as they were. */
export async function removeWatch(target: WatchTarget): Promise<WatchStatus> {
  const job = jobOf(target);
  const view = await job.look();
  const changed = view.available ? await job.remove() : false;
  return describe(target, view.available ? await job.look() : view, changed);
}

export async function watchStatus(target: WatchTarget): Promise<WatchStatus> {
  return describe(target, await jobOf(target).look(), false);
}

/** launchd on macOS, Task Scheduler on Windows, else cron; a named crontab program means cron anywhere (tests too). */
function jobOf(target: WatchTarget): ScheduledJob {
  const marker = watchMarker(jobDir(target));
  const spec = {
    nodePath: target.nodePath,
    cliPath: target.cliPath,
    credentialsDir: resolve(target.credentialsDir),
    ...(target.inbox ? { inbox: target.inbox.address } : {}),
    jobDir: jobDir(target),
    logPath: watchPaths(jobDir(target)).log,
    id: marker.slice(marker.indexOf(':') + 1),
    env: target.env,
  };
  const platform = target.crontabBin === 'crontab' ? (target.platform ?? process.platform) : undefined;
  if (platform === 'darwin') return launchAgentJob(spec, target.uid === undefined ? {} : { uid: target.uid });
  if (platform === 'win32') return taskSchedulerJob(spec);
  return crontabJob(target.crontabBin, target.env, { ...spec, schedule: dailySchedule, marker });
}

const schedulerWords: Record<SchedulerKind, [noun: string, missing: string]> = {
  crontab: ['A crontab job', 'No crontab program on this machine, so no daily job is installed.'],
  launchd: ['A LaunchAgent', 'launchctl could not be run here, so no LaunchAgent is installed.'],
  'task-scheduler': [
    'A Task Scheduler task',
    'schtasks could not be run here, so no Task Scheduler task is installed.',
  ],
};

async function describe(target: WatchTarget, view: JobView, changed: boolean) {
  const dir = resolve(target.credentialsDir);
  const paths = watchPaths(jobDir(target));
  const marker = watchMarker(jobDir(target));
  const settings = await readWatchSettings(jobDir(target));
  const hasCredentials = existsSync(join(dir, 'credentials.json')) || existsSync(join(dir, 'oauth.json'));
  const sandbox = hasCredentials ? await sandboxOfDirectory(dir) : undefined;
  const { line, installed } = view;
  const address = target.inbox?.address;
  const proposal = settings.wakeCommand ? undefined : proposeWakeCommand(target.env, marker.slice(-8));
  const dirArg = `${shellQuote(dir)}${inboxArg(address)}`;
  const cli = target.shellCommand ?? 'agent-mailbox';
  const verify = [...(view.available ? view.verify : []), `${cli} watch status --credentials-dir ${dirArg}`];
  const next: string[] = [];
  let summary: string;
  if (!view.available) {
    summary = schedulerWords[view.mechanism][1];
    next.push(
      `Keep \`${cli} watch run --credentials-dir ${dirArg}\` running: it fires the wake at 09:00 every day while it runs.`,
    );
  } else if (installed) {
    const next9 = nextDailyRun(target.now ?? new Date()).toString();
    summary = `${schedulerWords[view.mechanism][0]} runs \`agent-mailbox wake\` for ${address ?? 'this inbox'} every day at 09:00 local time (next: ${next9}); output goes to ${paths.log}.`;
    summary += !settings.wakeCommand
      ? ` No agent command is configured: it only writes the digest to ${paths.digest}.`
      : view.mechanism === 'task-scheduler'
        ? ` An agent command is configured, but on Windows the wake cannot start it yet (it runs through /bin/sh): the job writes the digest to ${paths.digest}.`
        : ' When new mail arrived it starts the configured agent command with a fixed read-only prompt.';
    // The host's own scheduler can run the read-only prompt where the wake cannot start an agent.
    if (settings.wakeCommand && view.mechanism === 'task-scheduler')
      next.push(
        "Schedule the prompt in `hostPrompt` with your host's own scheduler (daily at 09:00) to wake an agent.",
      );
  } else {
    summary = 'No daily job is installed for this credentials directory.';
    // Without a wake command the proposal below already names the install command.
    if (settings.wakeCommand) next.push(`${cli} watch install --credentials-dir ${dirArg}`);
  }
  if (!settings.wakeCommand)
    next.push(
      proposal
        ? `${proposal.hostName} detected (${proposal.detectedBy}). To let the job wake it, the operator may run: ${cli} watch install --credentials-dir ${dirArg} --wake-command ${shellQuote(proposal.wakeCommand)}. ${proposal.hostScheduler}`
        : `To wake an agent when mail arrives, the operator runs: ${cli} watch install --credentials-dir ${dirArg} --wake-command '<agent command; {prompt} becomes the prompt>'.`,
    );
  if (!hasCredentials) next.push(`No credentials.json in ${dir} yet: register first, or the job has nothing to read.`);
  if (sandbox)
    summary += ` This directory was registered against a local sandbox (JMAP ${sandbox.apiUrl ?? '?'}, auth ${sandbox.authUrl ?? '?'}), not the service: the job and every call reach its inbox only while that sandbox runs.`;
  return {
    credentialsDir: dir,
    ...(address !== undefined ? { inbox: address } : {}),
    mechanism: view.available ? view.mechanism : ('unavailable' as const),
    crontabAvailable: view.mechanism === 'crontab' && view.available,
    schedulerAvailable: view.available,
    ...(view.jobName !== undefined ? { jobName: view.jobName } : {}),
    ...(view.jobFile !== undefined ? { jobFile: view.jobFile } : {}),
    installed,
    // True when this call changed the scheduler's entry.
    changed,
    marker,
    schedule: dailySchedule,
    ...(installed
      ? {
          ...(line !== undefined ? { line } : {}),
          ...(view.command !== undefined ? { command: view.command } : {}),
          nextRun: nextDailyRun(target.now ?? new Date()).toISOString(),
        }
      : {}),
    ...(settings.wakeCommand ? { wakeCommand: settings.wakeCommand } : {}),
    hasCredentials,
    // The local sandbox this directory was registered against: the job reaches it only while it runs.
    ...(sandbox ? { sandbox } : {}),
    logPath: paths.log,
    digestPath: paths.digest,
    settingsPath: paths.settings,
    // For a host's own scheduler (no digest: the agent lists new mail itself).
    hostPrompt: wakePrompt({ credentialsDir: dir, inbox: address, inboxInput: address }),
    ...(proposal ? { proposal } : {}),
    summary,
    verify,
    remove: removeWatchHint(dir, cli, address),
    next,
  };
}
