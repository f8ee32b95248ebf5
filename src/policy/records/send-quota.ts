import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { MailboxError } from '../../errors.js';
import { withDirectoryLock } from '../../credentials/directory-lock.js';
import { readPrivateFile, writeFileAtomic } from '../../credentials/secure-file.js';

/**
 * The send caps' ledger: one timestamp per submission, per inbox, kept beside the credentials.
 * A slot is reserved under the directory lock before anything is sent, so two processes can never
 * both take the last one; a send the server certainly refused gives its slot back.
 */

export const sendLedgerFile = 'send-ledger.json';
const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

const ledgerSchema = z.object({
  version: z.literal(1),
  inboxes: z.record(z.string(), z.array(z.object({ id: z.string(), at: z.number() }))),
});
type Ledger = z.infer<typeof ledgerSchema>;

export interface SendCaps {
  perHour?: { value: number; from: string };
  perDay?: { value: number; from: string };
}

/** A reserved slot: `release` returns it when the send certainly did not happen. */
export interface SendSlot {
  id: string;
  release(): Promise<void>;
}

async function readLedger(path: string): Promise<Ledger> {
  const text = await readPrivateFile(path);
  if (text === undefined) return { version: 1, inboxes: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ledgerSchema.safeParse(json);
  // A damaged ledger is rebuilt empty rather than blocking every send forever; the audit log keeps history.
  return parsed.success ? parsed.data : { version: 1, inboxes: {} };
}

/**
 * When `count` more sends fit under `cap` in a sliding window: once no more than cap − count of the
 * sends in it remain, i.e. when the (cap − count)-th newest (0-based) has left. Undefined: never.
 */
function whenFits(inWindow: readonly number[], windowMs: number, cap: number, count: number): number | undefined {
  if (count > cap) return undefined;
  const newestFirst = [...inWindow].sort((a, b) => b - a);
  const leaving = newestFirst[cap - count];
  return leaving === undefined ? undefined : leaving + windowMs;
}

/** The refusal when `count` more sends do not fit the caps at `at`, or undefined when they fit. */
function capRefusal(times: readonly number[], at: number, count: number, caps: SendCaps): MailboxError | undefined {
  for (const [cap, windowMs, label, key] of [
    [caps.perHour, hourMs, 'per hour', 'send.maxSendsPerHour'],
    [caps.perDay, dayMs, 'per day', 'send.maxSendsPerDay'],
  ] as const) {
    if (!cap) continue;
    const inWindow = times.filter((t) => t > at - windowMs);
    if (inWindow.length + count <= cap.value) continue;
    const fits = whenFits(inWindow, windowMs, cap.value, count);
    const next = fits === undefined ? undefined : new Date(fits);
    return new MailboxError({
      code: 'policy_refused',
      message: `Not sent: your operator's policy (${cap.from} layer, max sends ${label}: ${cap.value}) allows no more sends ${label} right now${next ? `; the next send is allowed at ${next.toISOString()}` : count > cap.value ? `; this request alone sends ${count}` : ''}.`,
      hint: "This limit is your operator's rule. Wait until then, or ask your operator.",
      details: { rule: { layer: cap.from, rule: key }, ...(next ? { nextAllowedAt: next.toISOString() } : {}) },
    });
  }
  return undefined;
}

/** The sends of the last day for an inbox, as times. */
function recentTimes(ledger: Ledger, inboxKey: string, at: number): { id: string; at: number }[] {
  return (ledger.inboxes[inboxKey] ?? []).filter((entry) => entry.at > at - dayMs);
}

/** Throws the refusal when `count` more sends would not fit now; reserves nothing (a look before asking a person). */
export async function checkSendSlots(dir: string, inboxKey: string, count: number, caps: SendCaps, now: () => number = Date.now): Promise<void> {
  if (!caps.perHour && !caps.perDay) return;
  const at = now();
  const refusal = capRefusal(recentTimes(await readLedger(join(dir, sendLedgerFile)), inboxKey, at).map((e) => e.at), at, count, caps);
  if (refusal) throw refusal;
}

/**
 * Reserves `count` sending slots (one per submission) for an inbox, or refuses with the time the
 * next send is allowed. `now` is injectable for tests.
 */
export async function reserveSendSlots(dir: string, inboxKey: string, count: number, caps: SendCaps, now: () => number = Date.now): Promise<SendSlot[]> {
  const path = join(dir, sendLedgerFile);
  return withDirectoryLock(dir, 'send-ledger', async () => {
    const ledger = await readLedger(path);
    const at = now();
    const recent = recentTimes(ledger, inboxKey, at);
    const refusal = capRefusal(recent.map((entry) => entry.at), at, count, caps);
    if (refusal) throw refusal;
    const slots = Array.from({ length: count }, () => ({ id: randomUUID(), at }));
    ledger.inboxes[inboxKey] = [...recent, ...slots];
    await writeFileAtomic(path, JSON.stringify(ledger));
    return slots.map((slot) => ({
      id: slot.id,
      release: () =>
        withDirectoryLock(dir, 'send-ledger', async () => {
          const current = await readLedger(path);
          current.inboxes[inboxKey] = (current.inboxes[inboxKey] ?? []).filter((entry) => entry.id !== slot.id);
          await writeFileAtomic(path, JSON.stringify(current));
        }),
    }));
  });
}
