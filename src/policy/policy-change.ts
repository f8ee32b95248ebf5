import { parseListEntry } from './address-matcher.js';
import type { OnOff, PolicyFile, ReceiveMode, SendMode } from './policy-schema.js';

/** Changes to one layer's file; widening needs the operator at a terminal, narrowing never (anyone may tighten). */

export interface PolicySettings {
  sendMode?: SendMode;
  /** A number, or null to remove the cap. */
  maxSendsPerHour?: number | null;
  maxSendsPerDay?: number | null;
  maxRecipients?: number | null;
  secretScan?: OnOff;
  /** An absolute directory, or null to remove the restriction. */
  attachFrom?: string | null;
  newInboxes?: OnOff;
  receiveMode?: ReceiveMode;
}

export type PolicyChange =
  | { kind: 'set'; settings: PolicySettings }
  | { kind: 'list'; direction: 'send' | 'receive'; list: 'allow' | 'block'; entries: string[] }
  | { kind: 'unlist'; entries: string[] };

/** Canonical spellings of operator-given entries; the ones that are no address or domain are returned apart. */
export function canonicalEntries(raw: readonly string[]): { entries: string[]; invalid: string[] } {
  const entries: string[] = [];
  const invalid: string[] = [];
  for (const text of raw) {
    const entry = parseListEntry(text);
    if (entry) entries.push(entry.kind === 'address' ? entry.address : entry.domain);
    else invalid.push(text);
  }
  return { entries: [...new Set(entries)], invalid };
}

/** The layer's file after a change (entries already canonical). */
export function applyPolicyChange(before: PolicyFile, change: PolicyChange): PolicyFile {
  const after: PolicyFile = structuredClone(before);
  const send: Record<string, unknown> = { ...(after.send ?? {}) };
  const receive: Record<string, unknown> = { ...(after.receive ?? {}) };
  const listIn = (target: Record<string, unknown>, list: 'allow' | 'block') =>
    (target[list] as string[] | undefined) ?? [];
  if (change.kind === 'set') {
    const s = change.settings;
    if (s.sendMode) send.mode = s.sendMode;
    for (const cap of ['maxSendsPerHour', 'maxSendsPerDay', 'maxRecipients'] as const) {
      if (s[cap] === null) delete send[cap];
      else if (s[cap] !== undefined) send[cap] = s[cap];
    }
    if (s.secretScan) send.secretScan = s.secretScan;
    if (s.attachFrom === null) delete send.attachFrom;
    else if (s.attachFrom !== undefined) send.attachFrom = s.attachFrom;
    if (s.newInboxes) after.newInboxes = s.newInboxes;
    if (s.receiveMode) receive.mode = s.receiveMode;
  } else if (change.kind === 'list') {
    const target = change.direction === 'send' ? send : receive;
    const other = change.list === 'allow' ? 'block' : 'allow';
    // An entry lives in one list of a direction: allowing it takes it off the block-list and back.
    target[other] = listIn(target, other).filter((e) => !change.entries.includes(e));
    target[change.list] = [...new Set([...listIn(target, change.list), ...change.entries])];
  }
  for (const target of [send, receive]) {
    for (const list of ['allow', 'block'] as const) {
      if (change.kind === 'unlist') target[list] = listIn(target, list).filter((e) => !change.entries.includes(e));
      if (listIn(target, list).length === 0) delete target[list];
    }
  }
  if (Object.keys(send).length > 0) after.send = send as PolicyFile['send'];
  else delete after.send;
  if (Object.keys(receive).length > 0) after.receive = receive as PolicyFile['receive'];
  else delete after.receive;
  return after;
}

const sendModeRank: Record<SendMode, number> = { open: 0, confirm: 1, known: 1, allowlist: 2, off: 3 };

function capWidens(before: number | undefined, after: number | undefined): boolean {
  if (after === undefined) return before !== undefined;
  return before !== undefined && after > before;
}

/**
 * What a change widens, one phrase each (empty when it only narrows or changes nothing). Between `known`
 * and `confirm` either way is a widening: each lets through mail the other holds back.
 */
export function wideningChanges(before: PolicyFile, after: PolicyFile): string[] {
  const out: string[] = [];
  const b = before.send ?? {};
  const a = after.send ?? {};
  const bMode = b.mode ?? 'open';
  const aMode = a.mode ?? 'open';
  if (bMode !== aMode && (sendModeRank[aMode] < sendModeRank[bMode] || sendModeRank[aMode] === sendModeRank[bMode]))
    out.push(`send mode ${bMode} → ${aMode}`);
  for (const key of ['maxSendsPerHour', 'maxSendsPerDay', 'maxRecipients'] as const) {
    if (capWidens(b[key], a[key])) out.push(`${key} ${b[key] ?? 'none'} → ${a[key] ?? 'none'}`);
  }
  if ((b.secretScan ?? 'on') === 'on' && (a.secretScan ?? 'on') === 'off') out.push('secret scan on → off');
  if (b.attachFrom !== undefined && a.attachFrom !== b.attachFrom)
    out.push(`attachments from ${b.attachFrom} → ${a.attachFrom ?? 'anywhere'}`);
  if ((before.newInboxes ?? 'on') === 'off' && (after.newInboxes ?? 'on') === 'on') out.push('new inboxes off → on');
  for (const [direction, bList, aList] of [
    ['send', b, a],
    ['receive', before.receive ?? {}, after.receive ?? {}],
  ] as const) {
    for (const entry of aList.allow ?? [])
      if (!(bList.allow ?? []).includes(entry)) out.push(`${direction} allow + ${entry}`);
    for (const entry of bList.block ?? [])
      if (!(aList.block ?? []).includes(entry)) out.push(`${direction} block − ${entry}`);
  }
  if ((before.receive?.mode ?? 'open') === 'allowlist' && (after.receive?.mode ?? 'open') === 'open')
    out.push('receive mode allowlist → open');
  return out;
}

/**
 * Whether a change may newly refuse an auto-reply (which answers anyone): a send mode other than open, or a
 * block entry added; it is then looked at once, not at its next use (its text met the secret scan already).
 */
export function tightensAutoReplies(before: PolicyFile, after: PolicyFile): boolean {
  const b = before.send ?? {};
  const a = after.send ?? {};
  if ((a.mode ?? 'open') !== 'open' && a.mode !== b.mode) return true;
  return (a.block ?? []).some((entry) => !(b.block ?? []).includes(entry));
}
