import { randomUUID } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { MailboxError } from '../../errors.js';
import { ensurePrivateDir } from '../../credentials/secure-file.js';
import { appendPrivate, parseJsonLines } from './json-lines.js';

/**
 * The send caps' ledger: one line per submission, per inbox, in a file per UTC day. Reserving needs no lock: a
 * process appends its slots in one write (local appends land whole, in one order for everyone), then reads the
 * file back; its slots count after every slot written before them, so of two racing for the last slot the later
 * frees its own and is refused: a race may refuse a send that would fit, never pass the cap. A send the server
 * certainly refused frees its slot with a line of its own.
 */

const sendLedgerPrefix = 'send-ledger-';
const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

const lineSchema = z.union([
  z.object({ k: z.string(), id: z.string(), at: z.number() }),
  z.object({ k: z.string(), free: z.string() }),
]);
type LedgerLine = z.infer<typeof lineSchema>;

export interface SendCaps {
  perHour?: { value: number; from: string };
  perDay?: { value: number; from: string };
}

/** A reserved slot: `release` returns it when the send certainly did not happen. */
export interface SendSlot {
  id: string;
  release(): Promise<void>;
}

function fileOf(at: number): string {
  return `${sendLedgerPrefix}${new Date(at).toISOString().slice(0, 10)}.jsonl`;
}

async function appendLines(dir: string, at: number, lines: readonly LedgerLine[]): Promise<void> {
  const path = join(dir, fileOf(at));
  const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
  await appendPrivate(path, text).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    await ensurePrivateDir(dir);
    await appendPrivate(path, text);
  });
}

/** The lines of the last day (the files of the UTC days it touches), in file order. */
async function readLines(dir: string, at: number): Promise<LedgerLine[]> {
  const names = [...new Set([fileOf(at - dayMs), fileOf(at)])];
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8').catch(() => '')));
  return texts.flatMap((text) => parseJsonLines(text, lineSchema));
}

/** Slot times of `key` still counting (not freed, within the last day), in file order, with their ids. */
function countingSlots(lines: readonly LedgerLine[], key: string, at: number): { id: string; at: number }[] {
  const freed = new Set(lines.flatMap((line) => ('free' in line && line.k === key ? [line.free] : [])));
  return lines.flatMap((line) =>
    'id' in line && line.k === key && line.at > at - dayMs && !freed.has(line.id) ? [{ id: line.id, at: line.at }] : [],
  );
}

/** The refusal when `count` more sends do not fit after `slots`, or undefined when they fit. */
function capRefusal(
  slots: readonly { at: number }[],
  at: number,
  count: number,
  caps: SendCaps,
): MailboxError | undefined {
  const times = slots.map((slot) => slot.at);
  for (const [cap, windowMs, label, key] of [
    [caps.perHour, hourMs, 'per hour', 'send.maxSendsPerHour'],
    [caps.perDay, dayMs, 'per day', 'send.maxSendsPerDay'],
  ] as const) {
    if (!cap) continue;
    const inWindow = times.filter((t) => t > at - windowMs);
    if (inWindow.length + count <= cap.value) continue;
    // `count` more fit once no more than cap − count remain: when the (cap − count)-th newest (0-based) has left.
    const leaving = count > cap.value ? undefined : [...inWindow].sort((a, b) => b - a)[cap.value - count];
    const next = leaving === undefined ? undefined : new Date(leaving + windowMs);
    return new MailboxError({
      code: 'policy_refused',
      message: `Not sent: your operator's policy (${cap.from} layer, max sends ${label}: ${cap.value}) allows no more sends ${label} right now${next ? `; the next send is allowed at ${next.toISOString()}` : count > cap.value ? `; this request alone sends ${count}` : ''}.`,
      hint: "This limit is your operator's rule. Wait until then, or ask your operator.",
      details: { rule: { layer: cap.from, rule: key }, ...(next ? { nextAllowedAt: next.toISOString() } : {}) },
    });
  }
  return undefined;
}

/** Throws the refusal when `count` more sends would not fit now; reserves nothing (a look before asking a person). */
export async function checkSendSlots(
  dir: string,
  inboxKey: string,
  count: number,
  caps: SendCaps,
  now: () => number = Date.now,
): Promise<void> {
  if (!caps.perHour && !caps.perDay) return;
  const at = now();
  const slots = countingSlots(await readLines(dir, at), inboxKey, at);
  const refusal = capRefusal(slots, at, count, caps);
  if (refusal) throw refusal;
}

const prunedOn = new Map<string, string>();

/** Drops the files of days no window reaches any more (best effort, once a day per process). */
async function pruneOldDays(dir: string, at: number): Promise<void> {
  if (prunedOn.get(dir) === fileOf(at)) return;
  prunedOn.set(dir, fileOf(at));
  const keep = new Set([fileOf(at - dayMs), fileOf(at)]);
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith(sendLedgerPrefix) && name.endsWith('.jsonl') && !keep.has(name))
      .map((name) => unlink(join(dir, name)).catch(() => undefined)),
  );
}

/** Reserves `count` slots, or refuses with the next allowed time; every send is recorded, so a later cap counts it. */
export async function reserveSendSlots(
  dir: string,
  inboxKey: string,
  count: number,
  caps: SendCaps,
  now: () => number = Date.now,
): Promise<SendSlot[]> {
  if (count === 0) return [];
  const at = now();
  const mine = Array.from({ length: count }, () => ({ k: inboxKey, id: randomUUID(), at }));
  await appendLines(dir, at, mine);
  const release = (id: string) => () => appendLines(dir, now(), [{ k: inboxKey, free: id }]);
  if (caps.perHour || caps.perDay) {
    const slots = countingSlots(await readLines(dir, at), inboxKey, at);
    const lastOfMine = Math.max(...mine.map((slot) => slots.findIndex((s) => s.id === slot.id)));
    const before = slots.slice(0, lastOfMine + 1).filter((slot) => !mine.some((m) => m.id === slot.id));
    const refusal = capRefusal(before, at, count, caps);
    if (refusal) {
      await appendLines(
        dir,
        at,
        mine.map((slot) => ({ k: inboxKey, free: slot.id })),
      );
      throw refusal;
    }
  }
  await pruneOldDays(dir, at);
  return mine.map((slot) => ({ id: slot.id, release: release(slot.id) }));
}
