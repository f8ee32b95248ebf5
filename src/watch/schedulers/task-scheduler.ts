import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, win32 } from 'node:path';
import { MailboxError } from '../../errors.js';
import { noSchedulerError, refuseValues, wakeArguments, xmlText, xmlValue } from './job-values.js';
import { runIfPresent, runProgram, type ProgramRun } from './run-program.js';
import type { JobView, ScheduledJob, WakeJobSpec } from './scheduler.js';
import { readOptional, writeAtomically } from '../write-atomically.js';
import { batchArgument, batchRefusal, taskArgumentRefusal, taskArguments } from './windows-quoting.js';

/** The task's name: one per credentials directory (or inbox of a connected account). */
function windowsTaskName(id: string): string {
  return `agent-mailbox-watch-${id}`;
}

/** The task runs cmd.exe from the system folder, never one found on a PATH. */
const taskCommand = '%SystemRoot%\\System32\\cmd.exe';

function batchFilePath(jobDir: string): string {
  return join(jobDir, 'wake-task.cmd');
}

/** The one command line the batch file runs, output appended to the job's log. */
export function batchCommandLine(spec: WakeJobSpec): string {
  return [...wakeArguments(spec, batchArgument), '>>', batchArgument(spec.logPath), '2>&1'].join(' ');
}

/** CRLF, as cmd.exe expects; the console is switched to UTF-8 first, so paths in any script read as written. */
function buildWakeBatchFile(spec: WakeJobSpec): string {
  return [
    '@echo off',
    'rem The daily wake of agent-mailbox; `agent-mailbox watch remove` deletes this file and its task.',
    'chcp 65001 >nul',
    'setlocal DisableDelayedExpansion',
    batchCommandLine(spec),
    '',
  ].join('\r\n');
}

/** From XML (/TR holds 261 characters): daily at 09:00, late after sleep, on battery, as its user (no password). */
function buildTaskXml(spec: WakeJobSpec): string {
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    '    <Description>agent-mailbox: the daily wake of one inbox (agent-mailbox watch status shows it, watch remove removes it).</Description>',
    `    <URI>\\${windowsTaskName(spec.id)}</URI>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    '    <CalendarTrigger>',
    '      <StartBoundary>2000-01-01T09:00:00</StartBoundary>',
    '      <Enabled>true</Enabled>',
    '      <ScheduleByDay>',
    '        <DaysInterval>1</DaysInterval>',
    '      </ScheduleByDay>',
    '    </CalendarTrigger>',
    '  </Triggers>',
    '  <Principals>',
    '    <Principal id="Author">',
    '      <LogonType>InteractiveToken</LogonType>',
    '      <RunLevel>LeastPrivilege</RunLevel>',
    '    </Principal>',
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    '    <StartWhenAvailable>true</StartWhenAvailable>',
    '    <ExecutionTimeLimit>PT1H</ExecutionTimeLimit>',
    '    <Enabled>true</Enabled>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    `      <Command>${xmlText(taskCommand)}</Command>`,
    `      <Arguments>${xmlText(taskArguments(batchFilePath(spec.jobDir)))}</Arguments>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\r\n');
}

/** What makes a registered task ours as it should be, from its XML as schtasks prints it (with its own layout). */
export function taskEssentials(xml: string): { command: string; arguments: string; startTime: string } {
  const element = (name: string) => xmlValue(new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? '');
  return {
    command: element('Command'),
    arguments: element('Arguments'),
    startTime: element('StartBoundary').replace(/^[^T]*/, ''),
  };
}

/** The daily job as a Task Scheduler task of the current user, made and found with schtasks. */
export function taskSchedulerJob(spec: WakeJobSpec): ScheduledJob {
  const name = windowsTaskName(spec.id);
  const batchPath = batchFilePath(spec.jobDir);
  const schtasks = (args: string[]) => runProgram('schtasks', args, spec.env);

  /** The task's XML; '' when there is no such task, undefined without a schtasks to ask. */
  const query = async (): Promise<string | undefined> => {
    const result = await runIfPresent('schtasks', ['/Query', '/TN', name, '/XML'], spec.env);
    // schtasks words "not found" in the system's language; its exit code is the same everywhere.
    return result && (result.code === 0 ? result.stdout : '');
  };

  return {
    async look(): Promise<JobView> {
      const verify = [`schtasks /Query /TN ${name} /V /FO LIST`];
      const base = { mechanism: 'task-scheduler' as const, jobName: name, jobFile: batchPath, verify };
      const xml = await query();
      if (xml === undefined) return { ...base, available: false, installed: false };
      if (xml === '') return { ...base, available: true, installed: false };
      const task = taskEssentials(xml);
      const batch = await readOptional(batchPath);
      const command = batch?.trimEnd().split(/\r?\n/).at(-1);
      return {
        ...base,
        available: true,
        installed: true,
        line: `${task.command} ${task.arguments}`,
        ...(command !== undefined ? { command } : {}),
      };
    },
    async install() {
      refuseValues(spec, 'Task Scheduler', (label, value) => {
        if (label.endsWith('path') && !win32.isAbsolute(value)) return 'is not absolute';
        return batchRefusal(value);
      });
      const argumentRefusal = taskArgumentRefusal(batchPath);
      if (argumentRefusal !== undefined)
        throw new MailboxError({
          code: 'watch_failed',
          message: `The job's folder ${JSON.stringify(spec.jobDir)} ${argumentRefusal}, so Task Scheduler could not start the daily job.`,
          hint: 'Use a credentials directory without such characters, then run watch install again.',
        });
      const xml = buildTaskXml(spec);
      const batch = buildWakeBatchFile(spec);
      const registered = await query();
      if (registered === undefined) throw noSchedulerError('schtasks', 'Task Scheduler');
      const same =
        registered !== '' &&
        JSON.stringify(taskEssentials(registered)) === JSON.stringify(taskEssentials(xml)) &&
        (await readOptional(batchPath)) === batch;
      if (same) return false;
      await mkdir(spec.jobDir, { recursive: true, mode: 0o700 });
      await writeAtomically(batchPath, batch, 0o600, {
        code: 'watch_failed',
        hint: 'Check that the credentials directory exists and is writable by this user.',
      });
      // Task Scheduler reads a definition file as UTF-16 with its byte order mark, as it exports them.
      const xmlPath = join(spec.jobDir, `wake-task.${randomBytes(6).toString('hex')}.xml`);
      try {
        await writeFile(xmlPath, Buffer.from(`\ufeff${xml}`, 'utf16le'), { mode: 0o600 });
        // /F replaces a task of the same name, so there is never more than one per directory.
        await mustSucceed(await schtasks(['/Create', '/TN', name, '/XML', xmlPath, '/F']), 'create');
      } finally {
        await rm(xmlPath, { force: true });
      }
      return true;
    },
    async remove() {
      const registered = await query();
      if (registered) await mustSucceed(await schtasks(['/Delete', '/TN', name, '/F']), 'delete');
      const hadBatch = (await readOptional(batchPath)) !== undefined;
      await rm(batchPath, { force: true });
      return Boolean(registered) || hadBatch;
    },
  };
}

async function mustSucceed(result: ProgramRun, verb: string): Promise<void> {
  if (result.code === 0) return;
  throw new MailboxError({
    code: 'watch_failed',
    message: `schtasks could not ${verb} the task (exit ${result.code}): ${(result.stderr || result.stdout).trim() || 'no message'}`,
    hint: 'Check that the Task Scheduler service runs and this user may create tasks (`schtasks /Query`), then run watch install again.',
  });
}
