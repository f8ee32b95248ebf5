import { lstat, rename } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { withDirectoryLock } from '../../credentials/directory-lock.js';
import { ensurePrivateDir, readPrivateFile } from '../../credentials/secure-file.js';
import { redactSecrets } from '../../redact.js';
import { appendPrivate, parseJsonLines } from './json-lines.js';

/** Every attempt to make mail leave, one JSON line each (0600, secrets masked), rotated so it cannot fill the disk. */

const auditLogFile = 'audit.log';
export const auditLogMaxBytes = 1024 * 1024;

const auditEntrySchema = z.object({
  at: z.string(),
  door: z.enum(['cli', 'mcp', 'wake', 'operator']),
  inbox: z.string(),
  verdict: z.enum(['sent', 'refused', 'held', 'approved', 'discarded', 'declined']),
  /** The deciding rule of a refusal or a hold, e.g. `inbox: send.mode=allowlist`. */
  rule: z.string().optional(),
  recipients: z.array(z.string()),
  subject: z.string().optional(),
  /** Email, submission and outbox ids this attempt concerned. */
  ids: z.record(z.string(), z.string()).optional(),
  note: z.string().optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

async function sizeOf(path: string): Promise<number> {
  return (await lstat(path).catch(() => undefined))?.size ?? 0;
}

/**
 * Appends one entry; past the size cap the log replaces audit.log.1. An append lands whole among other
 * processes' lines, so only the rotation takes the lock (two rotating at once would lose a log).
 */
export async function appendAudit(dir: string, entry: AuditEntry): Promise<void> {
  const line = `${JSON.stringify({ ...entry, ...(entry.subject !== undefined ? { subject: redactSecrets(entry.subject) } : {}), ...(entry.note !== undefined ? { note: redactSecrets(entry.note) } : {}) })}\n`;
  const path = join(dir, auditLogFile);
  const size = await sizeOf(path);
  if (size === 0) await ensurePrivateDir(dir);
  // Stryker disable next-line EqualityOperator: this check only spares taking the lock; the one under the lock decides
  if (size + line.length > auditLogMaxBytes)
    await withDirectoryLock(dir, 'audit', async () => {
      const size = await sizeOf(path);
      if (size + line.length > auditLogMaxBytes && size > 0) await rename(path, `${path}.1`);
    });
  await appendPrivate(path, line);
}

/** The entries of the current log and the rotated one, oldest first; lines that do not parse are skipped. */
export async function readAudit(dir: string): Promise<AuditEntry[]> {
  const texts = await Promise.all([`${auditLogFile}.1`, auditLogFile].map((name) => readPrivateFile(join(dir, name))));
  return texts.flatMap((text) => parseJsonLines(text ?? '', auditEntrySchema));
}
