import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendAudit, auditLogMaxBytes, readAudit } from '../../../src/policy/records/audit-log.js';
import { listOutbox, recordHeld, transitionHeld } from '../../../src/policy/records/outbox-store.js';
import { reserveSendSlots } from '../../../src/policy/records/send-quota.js';
import { forgetAllSecrets, rememberSecret } from '../../../src/redact.js';

const run = promisify(execFile);
const builtQuota = fileURLToPath(new URL('../../../dist/policy/records/send-quota.js', import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
beforeEach(() => forgetAllSecrets());
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-mailbox-send-'));
  dirs.push(dir);
  return dir;
}

describe('send caps', () => {
  it('refuses the send past the hourly cap and names when the next one is allowed', async () => {
    const dir = await tempDir();
    let now = Date.parse('2026-11-25T10:00:00Z');
    const caps = { perHour: { value: 2, from: 'inbox' } };
    await reserveSendSlots(dir, 'a@x.test', 1, caps, () => now);
    now += 10 * 60 * 1000;
    await reserveSendSlots(dir, 'a@x.test', 1, caps, () => now);
    now += 5 * 60 * 1000;
    await expect(reserveSendSlots(dir, 'a@x.test', 1, caps, () => now)).rejects.toMatchObject({
      code: 'policy_refused',
      details: { nextAllowedAt: '2026-11-25T11:00:00.000Z', rule: { layer: 'inbox', rule: 'send.maxSendsPerHour' } },
    });
    // Another inbox in the same directory has its own ledger.
    await reserveSendSlots(dir, 'b@x.test', 1, caps, () => now);
    now = Date.parse('2026-11-25T11:00:01Z');
    await expect(reserveSendSlots(dir, 'a@x.test', 1, caps, () => now)).resolves.toHaveLength(1);
  });

  it('counts every submission of a batch, and a released slot is free again', async () => {
    const dir = await tempDir();
    const now = () => Date.parse('2026-11-25T10:00:00Z');
    const caps = { perDay: { value: 3, from: 'user' } };
    await expect(reserveSendSlots(dir, 'a', 4, caps, now)).rejects.toMatchObject({ code: 'policy_refused' });
    const slots = await reserveSendSlots(dir, 'a', 3, caps, now);
    await expect(reserveSendSlots(dir, 'a', 1, caps, now)).rejects.toMatchObject({ code: 'policy_refused' });
    await slots[0]!.release();
    await expect(reserveSendSlots(dir, 'a', 1, caps, now)).resolves.toHaveLength(1);
  });

  it('lets exactly the cap through when several processes race for the last slots', async () => {
    const dir = await tempDir();
    const script = `import(${JSON.stringify(builtQuota)}).then((m) => m.reserveSendSlots(${JSON.stringify(dir)}, 'a', 1, { perHour: { value: 3, from: 'inbox' } })).then(() => console.log('sent'), (e) => console.log(e.code))`;
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        run(process.execPath, ['--input-type=module', '-e', script]).then((r) => r.stdout.trim()),
      ),
    );
    expect(results.filter((r) => r === 'sent')).toHaveLength(3);
    expect(results.filter((r) => r === 'policy_refused')).toHaveLength(3);
  });
});

describe('audit log', () => {
  it('appends entries 0600 with secrets masked and reads them back in order', async () => {
    const dir = await tempDir();
    rememberSecret('amk_audit_secret_0123456789');
    await appendAudit(dir, {
      at: '2026-11-25T10:00:00Z',
      door: 'mcp',
      inbox: 'a@x.test',
      verdict: 'refused',
      rule: 'inbox: send.mode=allowlist',
      recipients: ['x@evil.test'],
      subject: 'key amk_audit_secret_0123456789',
    });
    await appendAudit(dir, {
      at: '2026-11-25T10:01:00Z',
      door: 'cli',
      inbox: 'a@x.test',
      verdict: 'sent',
      recipients: ['ana@x.test'],
      ids: { email: 'M1' },
    });
    const entries = await readAudit(dir);
    expect(entries.map((e) => e.verdict)).toEqual(['refused', 'sent']);
    expect(entries[0]!.subject).toBe('key <secret redacted>');
    expect((await stat(join(dir, 'audit.log'))).mode & 0o777).toBe(0o600);
  });

  it('rotates at its size cap and keeps reading across the rotation', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'audit.log'), `${'x'.repeat(auditLogMaxBytes - 10)}\n`, { mode: 0o600 });
    await appendAudit(dir, { at: 't', door: 'cli', inbox: 'a', verdict: 'held', recipients: [] });
    expect((await stat(join(dir, 'audit.log'))).size).toBeLessThan(1000);
    expect((await stat(join(dir, 'audit.log.1'))).size).toBeGreaterThan(auditLogMaxBytes - 100);
    expect((await readAudit(dir)).map((e) => e.verdict)).toEqual(['held']);
  });
});

describe('outbox record', () => {
  it('lets one approval take a held mail; a second learns it is already on its way or sent', async () => {
    const dir = await tempDir();
    const held = await recordHeld(dir, {
      inbox: 'a@x.test',
      emailId: 'M1',
      mailFrom: 'a@x.test',
      rcptTo: ['b@y.test'],
      subject: 'Hi',
      reason: 'inbox: send.mode=confirm',
    });
    const [first, second] = await Promise.all([
      transitionHeld(dir, held.id, ['held'], 'sending'),
      transitionHeld(dir, held.id, ['held'], 'sending'),
    ]);
    expect([first.previous, second.previous].sort()).toEqual(['held', 'sending']);
    await transitionHeld(dir, held.id, ['sending'], 'sent', { submissionId: 'S1' });
    expect((await transitionHeld(dir, held.id, ['held'], 'sending')).previous).toBe('sent');
    expect((await listOutbox(dir))[0]).toMatchObject({ status: 'sent', submissionId: 'S1', rcptTo: ['b@y.test'] });
    await expect(transitionHeld(dir, 'h-nothere', ['held'], 'discarded')).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
