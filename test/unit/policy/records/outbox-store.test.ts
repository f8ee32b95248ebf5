import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listOutbox, recordHeld, transitionHeld } from '../../../../src/policy/records/outbox-store.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';

/** The record `outbox approve` trusts: what was held, for whom, and each decision, kept whole or not used at all. */

const mail = {
  inbox: 'ada@agent-mailbox.test',
  emailId: 'M1',
  mailFrom: 'ada@agent-mailbox.test',
  rcptTo: ['bob@example.test'],
  subject: 'Figures',
  reason: 'inbox: send.mode=confirm',
};

describe('the outbox record', () => {
  it('is empty before anything was held', async () => {
    expect(await listOutbox(await tempCredentialsDir())).toEqual([]);
  });

  it('records a held mail with a short id a person can type, when it was held, and exactly what was judged', async () => {
    const dir = await tempCredentialsDir();
    const held = await recordHeld(dir, { ...mail, identityId: 'id-1' }, new Date('2030-03-01T10:00:00Z'));
    expect(held).toEqual({
      ...mail,
      identityId: 'id-1',
      id: expect.stringMatching(/^h-[0-9a-f]{8}$/),
      status: 'held',
      createdAt: '2030-03-01T10:00:00.000Z',
    });
    const second = await recordHeld(dir, { ...mail, emailId: 'M2' });
    expect(second.id).not.toBe(held.id);
    expect(await listOutbox(dir)).toEqual([held, second]);
    expect((await stat(join(dir, 'outbox.json'))).mode & 0o777).toBe(0o600);
  });

  it('keeps a record whose status is not the one expected as it is, and reports what it was', async () => {
    const dir = await tempCredentialsDir();
    const held = await recordHeld(dir, mail);
    const before = await readFile(join(dir, 'outbox.json'), 'utf8');
    const result = await transitionHeld(dir, held.id, ['sending'], 'sent', { submissionId: 'S9' });
    expect(result).toEqual({ record: held, previous: 'held' });
    expect(await readFile(join(dir, 'outbox.json'), 'utf8')).toBe(before);
  });

  it("records the decision's time and submission with the new status", async () => {
    const dir = await tempCredentialsDir();
    const held = await recordHeld(dir, mail);
    const { record, previous } = await transitionHeld(dir, held.id, ['held', 'sending'], 'discarded', {
      decidedAt: '2030-03-02T09:00:00.000Z',
    });
    expect(previous).toBe('held');
    expect(record).toEqual({ ...held, status: 'discarded', decidedAt: '2030-03-02T09:00:00.000Z' });
    expect(await listOutbox(dir)).toEqual([record]);
  });

  it('names the command that lists the ids when an id is unknown', async () => {
    const dir = await tempCredentialsDir();
    await recordHeld(dir, mail);
    await expect(transitionHeld(dir, 'h-00000000', ['held'], 'sending')).rejects.toMatchObject({
      code: 'invalid_input',
      message: "No held mail with the id h-00000000 in this inbox's outbox.",
      hint: 'Run `agent-mailbox outbox list` to see the held mail and their ids.',
    });
  });

  it('neither lists, adds to nor decides from a damaged record, and says whose file it is', async () => {
    for (const damage of [
      '{"version": 1, "held": [',
      '{"version": 2, "held": []}',
      '{"version": 1, "held": [{"id": "h-1"}]}',
      'null',
    ]) {
      const dir = await tempCredentialsDir();
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, 'outbox.json');
      await writeFile(path, damage, { mode: 0o600 });
      const expected = {
        code: 'credentials_corrupt',
        message: `The outbox record ${path} cannot be read; held mail is neither sent nor dropped until it can.`,
        hint: 'Repair or move the file aside (it is JSON); nothing on the server was changed.',
      };
      await expect(listOutbox(dir)).rejects.toMatchObject(expected);
      await expect(recordHeld(dir, mail)).rejects.toMatchObject(expected);
      await expect(transitionHeld(dir, 'h-1', ['held'], 'sending')).rejects.toMatchObject(expected);
      expect(await readFile(path, 'utf8')).toBe(damage);
    }
  });
});
