import { mkdir, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { MailboxError } from '../../errors.js';
import { shellQuote } from '../../render/shell-quote.js';
import { noSchedulerError, refuseValues, wakeArguments, xmlText } from './job-values.js';
import { runIfPresent, runProgram, type ProgramRun } from './run-program.js';
import type { JobView, ScheduledJob, WakeJobSpec } from './scheduler.js';
import { readOptional, writeAtomically } from '../write-atomically.js';

/** The LaunchAgent's label: one per credentials directory (or inbox of a connected account). */
function launchAgentLabel(id: string): string {
  return `com.agent-mailbox.watch.${id}`;
}

/** Daily at 09:00 (launchd runs a time missed in sleep at wake-up); no shell between, so each value is one argument. */
function buildLaunchAgentPlist(spec: WakeJobSpec): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${launchAgentLabel(spec.id)}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...wakeArguments(spec, (value) => value).map((value) => `    <string>${xmlText(value)}</string>`),
    '  </array>',
    '  <key>StartCalendarInterval</key>',
    '  <dict>',
    '    <key>Hour</key>',
    '    <integer>9</integer>',
    '    <key>Minute</key>',
    '    <integer>0</integer>',
    '  </dict>',
    '  <key>StandardOutPath</key>',
    `  <string>${xmlText(spec.logPath)}</string>`,
    '  <key>StandardErrorPath</key>',
    `  <string>${xmlText(spec.logPath)}</string>`,
    '  <key>ProcessType</key>',
    '  <string>Background</string>',
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** The daily job as a LaunchAgent in ~/Library/LaunchAgents, loaded into the user's gui domain. */
export function launchAgentJob(spec: WakeJobSpec, options: { uid?: number } = {}): ScheduledJob {
  const label = launchAgentLabel(spec.id);
  const home = spec.env.HOME !== undefined && spec.env.HOME !== '' ? spec.env.HOME : homedir();
  const plistPath = join(home, 'Library', 'LaunchAgents', `${label}.plist`);
  const domain = `gui/${options.uid ?? process.getuid?.() ?? 501}`;
  const service = `${domain}/${label}`;
  const launchctl = (args: string[]) => runProgram('launchctl', args, spec.env);

  /** Whether launchd has the job loaded; undefined without a launchctl to ask. */
  const loaded = async (): Promise<boolean | undefined> => {
    const result = await runIfPresent('launchctl', ['print', service], spec.env);
    return result && result.code === 0;
  };

  const look = async (): Promise<JobView> => {
    const verify = [`launchctl print ${shellQuote(service)}`];
    const isLoaded = await loaded();
    const plist = await readOptional(plistPath);
    const base = { mechanism: 'launchd' as const, jobName: label, jobFile: plistPath, verify };
    if (isLoaded === undefined) return { ...base, available: false, installed: false };
    if (!isLoaded || plist === undefined) return { ...base, available: true, installed: false };
    const args = wakeArguments(spec, shellQuote).join(' ');
    return {
      ...base,
      available: true,
      installed: true,
      line: args,
      command: `${args} >> ${shellQuote(spec.logPath)} 2>&1`,
    };
  };

  return {
    look,
    async install() {
      refuseValues(spec, 'launchd', (name, value) =>
        name.endsWith('path') && !isAbsolute(value) ? 'is not absolute' : undefined,
      );
      const plist = buildLaunchAgentPlist(spec);
      const isLoaded = await loaded();
      if (isLoaded === undefined) throw noSchedulerError('launchctl', 'LaunchAgent');
      if (isLoaded && (await readOptional(plistPath)) === plist) return false;
      // launchd reads the plist when the job is bootstrapped: a changed one takes effect only through bootout.
      if (isLoaded) await mustSucceed(await launchctl(['bootout', service]), 'bootout', service);
      // launchd refuses a plist that others may write: 0644 in a folder of the user's own.
      await mkdir(join(plistPath, '..'), { recursive: true, mode: 0o755 });
      await writeAtomically(plistPath, plist, 0o644, {
        code: 'watch_failed',
        hint: 'Check that ~/Library/LaunchAgents exists and belongs to this user, then run watch install again.',
      });
      // Right after a bootout launchd may still be tearing the job down and refuse (error 5) for a moment.
      let result = await launchctl(['bootstrap', domain, plistPath]);
      for (let attempt = 1; isLoaded && result.code !== 0 && attempt < 4; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
        result = await launchctl(['bootstrap', domain, plistPath]);
      }
      await mustSucceed(result, 'bootstrap', plistPath);
      return true;
    },
    async remove() {
      const isLoaded = await loaded();
      if (isLoaded) await mustSucceed(await launchctl(['bootout', service]), 'bootout', service);
      const hadPlist = (await readOptional(plistPath)) !== undefined;
      await rm(plistPath, { force: true });
      return isLoaded === true || hadPlist;
    },
  };
}

async function mustSucceed(result: ProgramRun, verb: string, what: string): Promise<void> {
  if (result.code === 0) return;
  throw new MailboxError({
    code: 'watch_failed',
    message: `launchctl ${verb} ${what} failed (exit ${result.code}): ${(result.stderr || result.stdout).trim() || 'no message'}`,
    hint: 'Check `launchctl print gui/$(id -u)` and the plist in ~/Library/LaunchAgents, then run watch install again (or watch remove).',
  });
}
