import { appendFile, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { appendAudit, auditLogMaxBytes, readAudit, type AuditEntry } from '../../../../src/policy/records/audit-log.js';
import { forgetAllSecrets, rememberSecret } from '../../../../src/redact.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';

/** The audit trail as the operator reads it back: every attempt kept, secrets masked, bounded on disk, never written through a link. */

beforeEach(() => forgetAllSecrets());

const entry = (extra: Partial<AuditEntry> = {}): AuditEntry => ({
  at: '2026-11-25T10:00:00.000Z',
  door: 'cli',
  inbox: 'ada@agent-mailbox.test',
  verdict: 'sent',
  recipients: ['bob@example.test'],
  ...extra,
});
const lineOf = (e: AuditEntry): string => `${JSON.stringify(e)}\n`;

describe('appendAudit', () => {
  it('creates the folder private on the first entry, and keeps every field as given', async () => {
    const dir = await tempCredentialsDir();
    const first = entry({
      rule: 'inbox: send.mode=confirm',
      subject: 'Figures',
      ids: { email: 'M1', outbox: 'h-1' },
      note: 'no answer in time',
      verdict: 'held',
    });
    await appendAudit(dir, first);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readFile(join(dir, 'audit.log'), 'utf8')).toBe(lineOf(first));
    expect(await readAudit(dir)).toEqual([first]);
  });

  it('masks a known secret in the note as well as the subject', async () => {
    const dir = await tempCredentialsDir();
    rememberSecret('amk_note_secret_0123456789abcdef');
    await appendAudit(dir, entry({ note: 'pasted amk_note_secret_0123456789abcdef by mistake' }));
    const [read] = await readAudit(dir);
    expect(read!.note).toBe('pasted <secret redacted> by mistake');
    expect(await readFile(join(dir, 'audit.log'), 'utf8')).not.toContain('amk_note_secret');
  });

  it('rotates only once an entry would take the log past its cap, replacing the older rotation', async () => {
    const dir = await tempCredentialsDir();
    await appendAudit(dir, entry({ note: 'oldest' }));
    const next = entry({ note: 'fits exactly' });
    const size = (await stat(join(dir, 'audit.log'))).size;
    await appendFile(join(dir, 'audit.log'), `${'x'.repeat(auditLogMaxBytes - size - lineOf(next).length - 1)}\n`);
    await appendAudit(dir, next);
    expect((await stat(join(dir, 'audit.log'))).size).toBe(auditLogMaxBytes);
    await expect(stat(join(dir, 'audit.log.1'))).rejects.toMatchObject({ code: 'ENOENT' });
    await appendAudit(dir, entry({ note: 'after the first rotation' }));
    expect((await readAudit(dir)).map((e) => e.note)).toEqual(['oldest', 'fits exactly', 'after the first rotation']);
    // Full again: the next rotation drops the first log.
    await appendFile(join(dir, 'audit.log'), `${'y'.repeat(auditLogMaxBytes)}\n`);
    await appendAudit(dir, entry({ note: 'after the second rotation' }));
    expect((await readAudit(dir)).map((e) => e.note)).toEqual([
      'after the first rotation',
      'after the second rotation',
    ]);
  });

  it('rotates once when several writers find the log full at the same time, losing neither the old log nor any entry', async () => {
    const dir = await tempCredentialsDir();
    await appendAudit(dir, entry({ note: 'old' }));
    await appendFile(join(dir, 'audit.log'), `${'x'.repeat(auditLogMaxBytes)}\n`);
    await Promise.all(['a', 'b', 'c', 'd'].map((note) => appendAudit(dir, entry({ note }))));
    expect((await readAudit(dir)).map((e) => e.note).sort()).toEqual(['a', 'b', 'c', 'd', 'old']);
    expect((await stat(join(dir, 'audit.log.1'))).size).toBeGreaterThan(auditLogMaxBytes);
  });

  it('writes an entry larger than the cap to an empty log, with no rotation', async () => {
    const dir = await tempCredentialsDir();
    await appendAudit(dir, entry({ subject: 's'.repeat(auditLogMaxBytes) }));
    expect((await readAudit(dir)).map((e) => e.subject?.length)).toEqual([auditLogMaxBytes]);
    await expect(stat(join(dir, 'audit.log.1'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never writes through a link planted in place of the log', async () => {
    const dir = await tempCredentialsDir();
    await appendAudit(dir, entry());
    const elsewhere = join(dir, '..', 'elsewhere.txt');
    await writeFile(elsewhere, 'untouched\n');
    await rm(join(dir, 'audit.log'));
    await symlink(elsewhere, join(dir, 'audit.log'));
    await expect(appendAudit(dir, entry({ note: 'diverted?' }))).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await readFile(elsewhere, 'utf8')).toBe('untouched\n');
  });
});

describe('readAudit', () => {
  it('reads nothing from a folder without a log', async () => {
    expect(await readAudit(await tempCredentialsDir())).toEqual([]);
  });

  it('skips lines cut by a crash and lines that are not entries, keeping the ones around them', async () => {
    const dir = await tempCredentialsDir();
    await appendAudit(dir, entry({ note: 'before' }));
    await appendFile(
      join(dir, 'audit.log'),
      '{"at": "2026-11-25T10:00:00Z", "door": "cli", "inb\n\n   \n{"at": "t", "door": "nowhere", "inbox": "a", "verdict": "sent", "recipients": []}\n[1, 2]\n',
    );
    await appendAudit(dir, entry({ note: 'after' }));
    expect((await readAudit(dir)).map((e) => e.note)).toEqual(['before', 'after']);
  });
});
