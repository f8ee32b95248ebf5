import { appendFile, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSendSlots, reserveSendSlots, type SendCaps } from '../../../../src/policy/records/send-quota.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * The send caps as the operator set them: exactly the cap in any sliding hour or day, the time
 * the refusal names is the very moment the next send fits, a day's window reaches into yesterday's
 * file, damage in the ledger costs no count, and old days' files are dropped.
 */

const hour = 60 * 60 * 1000;
const t = (iso: string): number => Date.parse(iso);
const perHour = (value: number): SendCaps => ({ perHour: { value, from: 'inbox' } });
const perDay = (value: number): SendCaps => ({ perDay: { value, from: 'user' } });

async function sendAt(dir: string, at: number, caps: SendCaps, count = 1): Promise<void> {
  await reserveSendSlots(dir, 'ada@agent-mailbox.test', count, caps, () => at);
}

describe('the hourly cap', () => {
  it('refuses until the moment it names, and allows a send at that very moment', async () => {
    const dir = await tempCredentialsDir();
    const caps = perHour(2);
    await sendAt(dir, t('2030-03-01T10:00:00Z'), caps);
    await sendAt(dir, t('2030-03-01T10:20:00Z'), caps);
    const error = await refusal(sendAt(dir, t('2030-03-01T10:59:59.999Z'), caps));
    expect(error.message).toBe(
      "Not sent: your operator's policy (inbox layer, max sends per hour: 2) allows no more sends per hour right now; the next send is allowed at 2030-03-01T11:00:00.000Z.",
    );
    expect(error.hint).toBe("This limit is your operator's rule. Wait until then, or ask your operator.");
    expect(error.details).toEqual({
      rule: { layer: 'inbox', rule: 'send.maxSendsPerHour' },
      nextAllowedAt: '2030-03-01T11:00:00.000Z',
    });
    await sendAt(dir, t('2030-03-01T11:00:00Z'), caps);
  });

  it('names the time when the whole batch fits, not only its first mail', async () => {
    const dir = await tempCredentialsDir();
    const caps = perHour(3);
    for (const minute of ['00', '10', '20']) await sendAt(dir, t(`2030-03-01T10:${minute}:00Z`), caps);
    const error = await refusal(sendAt(dir, t('2030-03-01T10:30:00Z'), caps, 2));
    expect(error.details).toMatchObject({ nextAllowedAt: '2030-03-01T11:10:00.000Z' });
    await refusal(sendAt(dir, t('2030-03-01T11:09:59Z'), caps, 2));
    await sendAt(dir, t('2030-03-01T11:10:00Z'), caps, 2);
  });

  it('names, for a batch as large as the cap, the time the newest send in the window leaves it', async () => {
    const dir = await tempCredentialsDir();
    const caps = perHour(2);
    await sendAt(dir, t('2030-03-01T10:00:00Z'), caps);
    await sendAt(dir, t('2030-03-01T10:20:00Z'), caps);
    const error = await refusal(sendAt(dir, t('2030-03-01T10:30:00Z'), caps, 2));
    expect(error.details).toMatchObject({ nextAllowedAt: '2030-03-01T11:20:00.000Z' });
    await refusal(sendAt(dir, t('2030-03-01T11:19:59Z'), caps, 2));
    await sendAt(dir, t('2030-03-01T11:20:00Z'), caps, 2);
  });

  it('says a batch larger than the cap never fits, naming no time', async () => {
    const dir = await tempCredentialsDir();
    const error = await refusal(sendAt(dir, t('2030-03-01T10:00:00Z'), perHour(2), 3));
    expect(error.message).toBe(
      "Not sent: your operator's policy (inbox layer, max sends per hour: 2) allows no more sends per hour right now; this request alone sends 3.",
    );
    expect(error.details).toEqual({ rule: { layer: 'inbox', rule: 'send.maxSendsPerHour' } });
    // Nothing was counted for it.
    await sendAt(dir, t('2030-03-01T10:00:00Z'), perHour(2), 2);
  });
});

describe('the daily cap', () => {
  it("counts yesterday's sends within the last 24 hours, across the UTC midnight", async () => {
    const dir = await tempCredentialsDir();
    const caps = perDay(2);
    await sendAt(dir, t('2030-03-01T23:30:00Z'), caps);
    await sendAt(dir, t('2030-03-02T00:10:00Z'), caps);
    const error = await refusal(sendAt(dir, t('2030-03-02T12:00:00Z'), caps));
    expect(error.message).toBe(
      "Not sent: your operator's policy (user layer, max sends per day: 2) allows no more sends per day right now; the next send is allowed at 2030-03-02T23:30:00.000Z.",
    );
    expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.maxSendsPerDay' } });
    await refusal(sendAt(dir, t('2030-03-02T23:29:59.999Z'), caps));
    await sendAt(dir, t('2030-03-02T23:30:00Z'), caps);
  });

  it('applies whichever of both caps is reached, each in its own window', async () => {
    const dir = await tempCredentialsDir();
    const caps: SendCaps = { ...perHour(1), ...perDay(2) };
    await sendAt(dir, t('2030-03-01T08:00:00Z'), caps);
    expect((await refusal(sendAt(dir, t('2030-03-01T08:30:00Z'), caps))).details).toMatchObject({
      rule: { rule: 'send.maxSendsPerHour' },
    });
    await sendAt(dir, t('2030-03-01T09:00:00Z'), caps);
    expect((await refusal(sendAt(dir, t('2030-03-01T12:00:00Z'), caps))).details).toMatchObject({
      rule: { rule: 'send.maxSendsPerDay' },
      nextAllowedAt: '2030-03-02T08:00:00.000Z',
    });
  });
});

describe('racing reservations', () => {
  it('never let more than the cap through, and the refused ones count for nothing afterwards', async () => {
    const dir = await tempCredentialsDir();
    const now = () => t('2030-03-01T10:00:00Z');
    const caps = perHour(5);
    const counts = [2, 1, 2, 1, 2, 1, 2];
    const results = await Promise.all(
      counts.map((count) =>
        reserveSendSlots(dir, 'ada@agent-mailbox.test', count, caps, now).then(
          (slots) => slots.length,
          () => 0,
        ),
      ),
    );
    const granted = results.reduce((sum, n) => sum + n, 0);
    // Never past the cap; the batch whose lines came first in the ledger always fits.
    expect(granted).toBeLessThanOrEqual(5);
    expect(granted).toBeGreaterThanOrEqual(1);
    await refusal(checkSendSlots(dir, 'ada@agent-mailbox.test', 5 - granted + 1, caps, now));
    await checkSendSlots(dir, 'ada@agent-mailbox.test', 5 - granted, caps, now);
  });
});

describe('checkSendSlots', () => {
  it('looks without counting: the same send can be checked again and again', async () => {
    const dir = await tempCredentialsDir();
    const now = () => t('2030-03-01T10:00:00Z');
    await sendAt(dir, now(), {});
    for (let i = 0; i < 3; i += 1) await checkSendSlots(dir, 'ada@agent-mailbox.test', 1, perHour(2), now);
    expect((await refusal(checkSendSlots(dir, 'ada@agent-mailbox.test', 2, perHour(2), now))).details).toMatchObject({
      nextAllowedAt: '2030-03-01T11:00:00.000Z',
    });
    // Other inboxes' sends are not this inbox's.
    await checkSendSlots(dir, 'bob@agent-mailbox.test', 2, perHour(2), now);
  });

  it('reads nothing when no cap is set', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'send-ledger-2030-03-01.jsonl'),
      `${JSON.stringify({ k: 'ada@agent-mailbox.test', id: 'x', at: t('2030-03-01T09:59:00Z') })}\n`.repeat(10),
    );
    await checkSendSlots(dir, 'ada@agent-mailbox.test', 1000, {}, () => t('2030-03-01T10:00:00Z'));
  });
});

describe('the ledger file', () => {
  it('is created private with its folder, one line per send, caps or not', async () => {
    const dir = await tempCredentialsDir();
    const slots = await reserveSendSlots(dir, 'Ada@Agent-Mailbox.test', 2, {}, () => t('2030-03-01T10:00:00Z'));
    expect(slots.map((s) => s.id)).toEqual([
      expect.stringMatching(/^[0-9a-f-]{36}$/),
      expect.stringMatching(/^[0-9a-f-]{36}$/),
    ]);
    expect(slots[0]!.id).not.toBe(slots[1]!.id);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const file = join(dir, 'send-ledger-2030-03-01.jsonl');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual(slots.map((s) => ({ k: 'Ada@Agent-Mailbox.test', id: s.id, at: t('2030-03-01T10:00:00Z') })));
  });

  it("writes nothing for a request that sends nothing, and never writes through a link planted as the day's file", async () => {
    const dir = await tempCredentialsDir();
    expect(await reserveSendSlots(dir, 'a', 0, {}, () => t('2030-03-01T10:00:00Z'))).toEqual([]);
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const elsewhere = join(dir, '..', 'elsewhere.txt');
    await writeFile(elsewhere, 'untouched\n');
    await symlink(elsewhere, join(dir, 'send-ledger-2030-03-01.jsonl'));
    await expect(sendAt(dir, t('2030-03-01T10:00:00Z'), {})).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await readFile(elsewhere, 'utf8')).toBe('untouched\n');
  });

  it('counts the sound lines around a damaged one', async () => {
    const dir = await tempCredentialsDir();
    const caps = perHour(2);
    await sendAt(dir, t('2030-03-01T10:00:00Z'), caps);
    await appendFile(
      join(dir, 'send-ledger-2030-03-01.jsonl'),
      '{"k": "ada@agent-mailbox.test", "id": "cut\n{"k": 1}\n\n',
    );
    await sendAt(dir, t('2030-03-01T10:01:00Z'), caps);
    await refusal(sendAt(dir, t('2030-03-01T10:02:00Z'), caps));
  });

  it('frees a slot given back on the next day too', async () => {
    const dir = await tempCredentialsDir();
    let now = t('2030-03-01T23:59:00Z');
    const [slot] = await reserveSendSlots(dir, 'ada@agent-mailbox.test', 1, perDay(1), () => now);
    now = t('2030-03-02T00:01:00Z');
    await refusal(sendAt(dir, now, perDay(1)));
    await slot!.release();
    expect(await readFile(join(dir, 'send-ledger-2030-03-02.jsonl'), 'utf8')).toContain(`"free":"${slot!.id}"`);
    await sendAt(dir, now, perDay(1));
  });

  it('drops the files of days no window reaches any more, and nothing else', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    for (const name of [
      'send-ledger-2030-02-26.jsonl',
      'send-ledger-2030-02-27.jsonl',
      'send-ledger-2030-02-28.jsonl',
      'send-ledger-2030-02-26.txt',
      'notes-2030-02-26.jsonl',
      'audit.log',
    ])
      await writeFile(join(dir, name), '');
    await sendAt(dir, t('2030-03-01T10:00:00Z') + hour, {});
    expect((await readdir(dir)).sort()).toEqual([
      'audit.log',
      'notes-2030-02-26.jsonl',
      'send-ledger-2030-02-26.txt',
      'send-ledger-2030-02-28.jsonl',
      'send-ledger-2030-03-01.jsonl',
    ]);
  });
});
