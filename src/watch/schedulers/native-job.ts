import { launchAgentJob } from './launch-agent.js';
import type { NativeJob, SchedulerKind, WakeJobSpec } from './scheduler.js';
import { taskSchedulerJob } from './task-scheduler.js';

/** The job of a platform whose scheduler is not cron; undefined for cron, which keeps its own path. */
export function nativeJob(kind: SchedulerKind, spec: WakeJobSpec, uid?: number): NativeJob | undefined {
  if (kind === 'launchd') return launchAgentJob(spec, uid === undefined ? {} : { uid });
  if (kind === 'task-scheduler') return taskSchedulerJob(spec);
  return undefined;
}
