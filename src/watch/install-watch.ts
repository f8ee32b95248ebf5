import { access } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { sandboxOfDirectory, type RegisteredSandbox } from '../credentials/loopback-endpoints.js';
import { MailboxError } from '../errors.js';
import {
  buildCronLine,
  commandOfCronLine,
  findCronEntry,
  removeCronEntry,
  upsertCronEntry,
} from './crontab-entries.js';
import { noCrontabError, readCrontab, writeCrontab, type CrontabProgram } from './crontab-program.js';
import { proposeWakeCommand, type WakeCommandProposal } from './propose-wake-command.js';
import { shellQuote } from '../render/shell-quote.js';
import { wakePrompt } from './wake-prompt.js';
import { dailySchedule, nextDailyRun, watchMarker } from './watch-marker.js';
import { readWatchSettings, watchPaths, writeWatchSettings } from './watch-settings.js';

/** Where the job lives and what it runs; every path ends up absolute in the crontab line. */
export interface WatchTarget {
  credentialsDir: string;
  /**
   * One inbox of a connected account: its address (the wake's --inbox) and its own folder, where
   * its job's marker, settings, log and digest live. Absent for a proof-of-work directory.
   */
  inbox?: { address: string; stateDir: string };
  env: Readonly<Record<string, string | undefined>>;
  /** Absolute node binary (process.execPath at the entry). */
  nodePath: string;
  /** Absolute CLI entry (dist/bin.js). */
  cliPath: string;
  /** The crontab program (setting `crontab` in src/config.ts), resolved by the caller. */
  crontabBin: string;
  /** How the operator runs this CLI at a shell, for the commands we suggest (src/render/shell-command.ts). */
  shellCommand?: string;
  now?: Date;
}

export interface InstallWatchOptions extends WatchTarget {
  /** The operator's agent command (setting `wakeCommand`, resolved by the caller); else the one stored before. */
  wakeCommand?: string;
}

export interface WatchStatus {
  credentialsDir: string;
  /** The inbox of a connected account this job reads. */
  inbox?: string;
  mechanism: 'crontab' | 'unavailable';
  crontabAvailable: boolean;
  installed: boolean;
  /** True when this call edited the crontab (install/remove); false when it was already so. */
  changed: boolean;
  marker: string;
  schedule: string;
  line?: string;
  /** The entry's shell command as cron runs it (for `env -i sh -c '<command>'`). */
  command?: string;
  nextRun?: string;
  wakeCommand?: string;
  hasCredentials: boolean;
  /** The local sandbox this directory was registered against, if it was: the job reaches it only while it runs. */
  sandbox?: RegisteredSandbox;
  logPath: string;
  digestPath: string;
  settingsPath: string;
  /** The read-only prompt for a host's own scheduler (no digest: the agent lists new mail itself). */
  hostPrompt: string;
  proposal?: WakeCommandProposal;
  summary: string;
  verify: string[];
  remove: string;
  next: string[];
}

/** The command that removes the job of a credentials directory (of one of its inboxes, on a connected account). */
export function removeWatchHint(credentialsDir: string, shellCommand = 'agent-mailbox', inbox?: string): string {
  return `${shellCommand} watch remove --credentials-dir ${shellQuote(resolve(credentialsDir))}${inboxArg(inbox)}`;
}

function inboxArg(inbox: string | undefined): string {
  return inbox === undefined ? '' : ` --inbox ${shellQuote(inbox)}`;
}

/** The folder of the job's own files: the credentials directory, or the inbox's folder on a connected account. */
function jobDir(target: WatchTarget): string {
  return target.inbox?.stateDir ?? resolve(target.credentialsDir);
}

/** Installs (or refreshes) the daily crontab entry of a credentials directory; idempotent. */
export async function installWatch(options: InstallWatchOptions): Promise<WatchStatus> {
  const dir = absoluteDir(options);
  const program = crontabProgram(options);
  const stored = await readWatchSettings(jobDir(options));
  const wakeCommand = nonEmpty(options.wakeCommand) ?? stored.wakeCommand;
  const path = nonEmpty(options.env.PATH) ?? stored.path;
  await writeWatchSettings(jobDir(options), {
    ...stored,
    ...(wakeCommand ? { wakeCommand } : {}),
    ...(path ? { path } : {}),
    updatedAt: (options.now ?? new Date()).toISOString(),
  });
  const current = await readCrontab(program);
  if (current === undefined) throw noCrontabError(program.bin);
  const marker = watchMarker(jobDir(options));
  const line = entryLine(options, dir, marker);
  const changed = findCronEntry(current, marker) !== line;
  if (changed) await writeCrontab(program, upsertCronEntry(current, marker, line));
  return describe(options, dir, await readCrontab(program), changed);
}

/** Removes exactly this directory's crontab entry; other lines stay as they were. */
export async function removeWatch(target: WatchTarget): Promise<WatchStatus> {
  const dir = absoluteDir(target);
  const program = crontabProgram(target);
  const current = await readCrontab(program);
  if (current === undefined) return describe(target, dir, undefined, false);
  const marker = watchMarker(jobDir(target));
  const changed = findCronEntry(current, marker) !== undefined;
  if (changed) await writeCrontab(program, removeCronEntry(current, marker));
  return describe(target, dir, await readCrontab(program), changed);
}

/** Reports whether the job is installed, when it runs next, and how to verify and remove it. */
export async function watchStatus(target: WatchTarget): Promise<WatchStatus> {
  const dir = absoluteDir(target);
  return describe(target, dir, await readCrontab(crontabProgram(target)), false);
}

function entryLine(target: WatchTarget, dir: string, marker: string): string {
  for (const [name, value] of [
    ['node binary', target.nodePath],
    ['CLI entry', target.cliPath],
  ] as const) {
    if (!isAbsolute(value)) {
      throw new MailboxError({
        code: 'watch_failed',
        message: `The ${name} path "${value}" is not absolute; cron runs with no PATH and could not find it.`,
        hint: 'Run the command through its installed `agent-mailbox` binary or with an absolute path to node.',
      });
    }
  }
  const logPath = watchPaths(jobDir(target)).log;
  return buildCronLine({
    schedule: dailySchedule,
    nodePath: target.nodePath,
    cliPath: target.cliPath,
    credentialsDir: dir,
    ...(target.inbox ? { inbox: target.inbox.address } : {}),
    logPath,
    marker,
  });
}

async function describe(
  target: WatchTarget,
  dir: string,
  crontab: string | undefined,
  changed: boolean,
): Promise<WatchStatus> {
  const paths = watchPaths(jobDir(target));
  const marker = watchMarker(jobDir(target));
  const settings = await readWatchSettings(jobDir(target));
  const hasCredentials = (await exists(join(dir, 'credentials.json'))) || (await exists(join(dir, 'oauth.json')));
  const sandbox = hasCredentials ? await sandboxOfDirectory(dir) : undefined;
  const line = crontab === undefined ? undefined : findCronEntry(crontab, marker);
  const installed = line !== undefined;
  const proposal = settings.wakeCommand ? undefined : proposeWakeCommand(target.env, marker.slice(-8));
  const dirArg = `${shellQuote(dir)}${inboxArg(target.inbox?.address)}`;
  const cli = target.shellCommand ?? 'agent-mailbox';
  const verify =
    crontab === undefined
      ? [`${cli} watch status --credentials-dir ${dirArg}`]
      : ['crontab -l', `${cli} watch status --credentials-dir ${dirArg}`];
  const next: string[] = [];
  let summary: string;
  if (crontab === undefined) {
    summary = 'No crontab program on this machine, so no daily job is installed.';
    next.push(
      `Keep \`${cli} watch run --credentials-dir ${dirArg}\` running: it fires the wake at 09:00 every day while it runs.`,
    );
  } else if (installed) {
    const next9 = nextDailyRun(target.now ?? new Date()).toString();
    summary = `A crontab job runs \`agent-mailbox wake\` for ${target.inbox ? target.inbox.address : 'this inbox'} every day at 09:00 local time (next: ${next9}); output goes to ${paths.log}.`;
    summary += settings.wakeCommand
      ? ' When new mail arrived it starts the configured agent command with a fixed read-only prompt.'
      : ` No agent command is configured: it only writes the digest to ${paths.digest}.`;
  } else {
    summary = 'No daily job is installed for this credentials directory.';
    // Without a wake command the proposal below already names the install command.
    if (settings.wakeCommand) next.push(`${cli} watch install --credentials-dir ${dirArg}`);
  }
  if (!settings.wakeCommand) {
    next.push(
      proposal
        ? `${proposal.hostName} detected (${proposal.detectedBy}). To let the job wake it, the operator may run: ${cli} watch install --credentials-dir ${dirArg} --wake-command ${shellQuote(proposal.wakeCommand)}. ${proposal.hostScheduler}`
        : `To wake an agent when mail arrives, the operator runs: ${cli} watch install --credentials-dir ${dirArg} --wake-command '<agent command; {prompt} becomes the prompt>'.`,
    );
  }
  if (!hasCredentials) next.push(`No credentials.json in ${dir} yet: register first, or the job has nothing to read.`);
  if (sandbox) {
    summary += ` This directory was registered against a local sandbox (JMAP ${sandbox.apiUrl ?? '?'}, auth ${sandbox.authUrl ?? '?'}), not the service: the job and every call reach its inbox only while that sandbox runs.`;
  }
  return {
    credentialsDir: dir,
    ...(target.inbox ? { inbox: target.inbox.address } : {}),
    mechanism: crontab === undefined ? 'unavailable' : 'crontab',
    crontabAvailable: crontab !== undefined,
    installed,
    changed,
    marker,
    schedule: dailySchedule,
    ...(line !== undefined
      ? { line, command: commandOfCronLine(line), nextRun: nextDailyRun(target.now ?? new Date()).toISOString() }
      : {}),
    ...(settings.wakeCommand ? { wakeCommand: settings.wakeCommand } : {}),
    hasCredentials,
    ...(sandbox ? { sandbox } : {}),
    logPath: paths.log,
    digestPath: paths.digest,
    settingsPath: paths.settings,
    hostPrompt: wakePrompt({
      credentialsDir: dir,
      ...(target.inbox ? { inbox: target.inbox.address, inboxInput: target.inbox.address } : {}),
    }),
    ...(proposal ? { proposal } : {}),
    summary,
    verify,
    remove: removeWatchHint(dir, cli, target.inbox?.address),
    next,
  };
}

function crontabProgram(target: WatchTarget): CrontabProgram {
  return { bin: target.crontabBin, env: target.env };
}

function absoluteDir(target: WatchTarget): string {
  return resolve(target.credentialsDir);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
