/** The scheduler that runs the daily wake on each platform, and what every one of them reports. */
export type SchedulerKind = 'crontab' | 'launchd' | 'task-scheduler';

/** One credentials directory's job as its scheduler holds it. */
export interface JobView {
  mechanism: SchedulerKind;
  /** False when the scheduler's program cannot be run here (no crontab, launchctl or schtasks). */
  available: boolean;
  installed: boolean;
  /** What the scheduler holds: the crontab line, the LaunchAgent's program arguments, the task's action. */
  line?: string;
  /** The command as the job runs it, to try by hand (for cron: `env -i sh -c '<command>'`). */
  command?: string;
  /** The scheduler's name of the job: the LaunchAgent's label, the task's name (cron has only the marker). */
  jobName?: string;
  /** The file that defines the job: the LaunchAgent's plist, the task's batch file. */
  jobFile?: string;
  /** Commands that show the job in the scheduler's own words. */
  verify: string[];
}

/** What the job of one credentials directory (or one inbox of a connected account) runs. */
export interface WakeJobSpec {
  nodePath: string;
  cliPath: string;
  credentialsDir: string;
  inbox?: string;
  /** The job's own folder: its log, and the files a scheduler needs beside it. */
  jobDir: string;
  logPath: string;
  /** The 16 hex digits that name this directory's job (from its marker). */
  id: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** One job in its scheduler: found, installed (idempotently) and removed. */
export interface ScheduledJob {
  look(): Promise<JobView>;
  /** True when it changed anything. */
  install(): Promise<boolean>;
  remove(): Promise<boolean>;
}
