import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import * as z from 'zod';
import { MailboxError } from '../../errors.js';
import { withDirectoryLock } from '../../credentials/directory-lock.js';
import { readPrivateFile, writeFileAtomic } from '../../credentials/secure-file.js';

/** Held mail as judged: `outbox approve` trusts this, not Drafts (the agent's to write), and sends each once. */

const outboxFile = 'outbox.json';

const heldMailSchema = z.object({
  id: z.string(),
  inbox: z.string(),
  createdAt: z.string(),
  emailId: z.string(),
  identityId: z.string().optional(),
  /** The envelope as judged: who the mail goes to, and from. */
  mailFrom: z.string(),
  rcptTo: z.array(z.string()),
  subject: z.string(),
  /** Why it was held: the deciding rule. */
  reason: z.string(),
  status: z.enum(['held', 'sending', 'sent', 'discarded']),
  decidedAt: z.string().optional(),
  submissionId: z.string().optional(),
});
export type HeldMail = z.infer<typeof heldMailSchema>;

const outboxSchema = z.object({ version: z.literal(1), held: z.array(heldMailSchema) });
type Outbox = z.infer<typeof outboxSchema>;

async function readOutbox(dir: string): Promise<Outbox> {
  const path = join(dir, outboxFile);
  const text = await readPrivateFile(path);
  if (text === undefined) return { version: 1, held: [] };
  try {
    return outboxSchema.parse(JSON.parse(text));
  } catch {
    throw new MailboxError({
      code: 'credentials_corrupt',
      message: `The outbox record ${path} cannot be read; held mail is neither sent nor dropped until it can.`,
      hint: 'Repair or move the file aside (it is JSON); nothing on the server was changed.',
    });
  }
}

export async function listOutbox(dir: string): Promise<HeldMail[]> {
  return (await readOutbox(dir)).held;
}

/** Records a held mail and returns its outbox id (short, for a person to type). */
export async function recordHeld(
  dir: string,
  mail: Omit<HeldMail, 'id' | 'status' | 'createdAt'>,
  now: Date = new Date(),
): Promise<HeldMail> {
  return withDirectoryLock(dir, 'outbox', async () => {
    const outbox = await readOutbox(dir);
    const record: HeldMail = {
      ...mail,
      id: `h-${randomBytes(4).toString('hex')}`,
      status: 'held',
      createdAt: now.toISOString(),
    };
    outbox.held.push(record);
    await writeFileAtomic(join(dir, outboxFile), JSON.stringify(outbox, null, 2));
    return record;
  });
}

/** Moves a record on under the lock: only one approval gets `held → sending`, the others learn what happened. */
export async function transitionHeld(
  dir: string,
  id: string,
  from: HeldMail['status'][],
  to: HeldMail['status'],
  extra: Partial<Pick<HeldMail, 'submissionId' | 'decidedAt'>> = {},
): Promise<{ record: HeldMail; previous: HeldMail['status'] }> {
  return withDirectoryLock(dir, 'outbox', async () => {
    const outbox = await readOutbox(dir);
    const record = outbox.held.find((held) => held.id === id);
    if (!record)
      throw new MailboxError({
        code: 'invalid_input',
        message: `No held mail with the id ${id} in this inbox's outbox.`,
        hint: 'Run `agent-mailbox outbox list` to see the held mail and their ids.',
      });
    const previous = record.status;
    if (!from.includes(previous)) return { record, previous };
    Object.assign(record, { status: to, ...extra });
    await writeFileAtomic(join(dir, outboxFile), JSON.stringify(outbox, null, 2));
    return { record, previous };
  });
}
