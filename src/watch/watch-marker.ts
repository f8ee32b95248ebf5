import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/** The production schedule (spec §2.9): every day at 09:00 local time. */
export const dailySchedule = '0 9 * * *';

/** Ties a job to one credentials directory: a shared name made inboxes overwrite each other's (live-service bug 8). */
export function watchMarker(credentialsDir: string): string {
  const digest = createHash('sha256').update(resolve(credentialsDir)).digest('hex').slice(0, 16);
  return `agent-mailbox-watch:${digest}`;
}

/** The next time a `0 9 * * *` job fires after `now`, in local time. */
export function nextDailyRun(now: Date): Date {
  const next = new Date(now);
  next.setHours(9, 0, 0, 0);
  if (next.getTime() <= now.getTime()) next.setDate(next.getDate() + 1);
  return next;
}
