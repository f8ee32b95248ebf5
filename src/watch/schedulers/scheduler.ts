/** The scheduler that runs the daily wake on each platform, and what every one of them reports. */
export type SchedulerKind = 'crontab' | 'launchd' | 'task-scheduler';

/** One credentials directory's job as its scheduler holds it. */
export interface JobView {
  mechanism: SchedulerKind;
  /** False when the scheduler's program (crontab, launchctl, schtasks) cannot be run here. */
  available: boolean;
  installed: boolean;
  /** What the scheduler holds: the crontab line, the LaunchAgent's program arguments, the task's action. */
  line?: string;
  /** The command as the job runs it, to try by hand. */
  command?: string;
  /** The LaunchAgent's label, the task's name (cron has only the marker). */
  jobName?: string;
  /** The LaunchAgent's plist, the task's batch file. */
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
  /** The 16 hex digits of its marker that name this directory's job. */
  id: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** One job in its scheduler: found, installed (idempotently; true when it changed anything) and removed. */
export interface ScheduledJob {
  look(): Promise<JobView>;
  install(): Promise<boolean>;
  remove(): Promise<boolean>;
}
