import { isRecord } from '../is-record.js';
import { automaticReason } from '../mail/automatic-mail.js';
import { htmlToText } from '../present/html-to-text.js';
import { quoteOriginal } from '../present/mail-text.js';
import type { Capture } from './preset-schema.js';

/** The fixed set of capture transforms (reply threading rules from jmap.md "Replying"). */

type Transform = (value: unknown, vars: Readonly<Record<string, unknown>>) => unknown;

const transforms: Record<NonNullable<Capture['transform']>, Transform> = {
  reply_subject: (value) => replySubject(typeof value === 'string' ? value : ''),
  reply_to: (email) => replyTargets(asRecord(email)),
  reply_references: (email) => {
    const record = asRecord(email);
    const earlier = strings(record.references).length > 0 ? strings(record.references) : strings(record.inReplyTo);
    const all = [...earlier, ...strings(record.messageId)];
    return all.length > 0 ? all : null;
  },
  // Everyone else who got the original, minus this inbox and whoever is already in To.
  reply_all_cc: (email, vars) => {
    const record = asRecord(email);
    const own = typeof vars.INBOX === 'string' ? vars.INBOX.toLowerCase() : '';
    const taken = new Set([own, ...addressesOf(replyTargets(record)).map((a) => a.email.toLowerCase())]);
    const cc = [...addressesOf(record.to), ...addressesOf(record.cc)].filter((a) => {
      const key = a.email.toLowerCase();
      if (taken.has(key)) return false;
      taken.add(key);
      return true;
    });
    return cc.length > 0 ? cc : null;
  },
  quote_original: (email, vars) => {
    if (typeof vars.QUOTE === 'string' && /^(no|false|0)$/i.test(vars.QUOTE.trim())) return '';
    const record = asRecord(email);
    const text = bodyText(record);
    if (text === '') return '';
    const sender = addressesOf(record.from)[0];
    const fromLabel = sender ? (sender.name ? `${sender.name} <${sender.email}>` : sender.email) : 'the sender';
    const date = [record.sentAt, record.receivedAt].find((d): d is string => typeof d === 'string');
    return `\n\n${quoteOriginal({ fromLabel, text, ...(date ? { date } : {}) })}`;
  },
  automatic_reason: (email) => automaticReason(asRecord(email)) ?? '',
};

export function applyTransform(
  name: Capture['transform'],
  value: unknown,
  vars: Readonly<Record<string, unknown>> = {},
): unknown {
  return name ? transforms[name](value, vars) : value;
}

/** `Re: ` once: never stacked on a subject that already starts with re: in any case. */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  return /^re\s*:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`;
}

export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
    else if (node !== null && typeof node === 'object') node = (node as Record<string, unknown>)[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

// The reference client used replyTo even when it was null; fall back to from.
function replyTargets(record: Record<string, unknown>): unknown {
  if (Array.isArray(record.replyTo) && record.replyTo.length > 0) return record.replyTo;
  return Array.isArray(record.from) ? record.from : undefined;
}

/** The original's text body: text/plain parts as they are, an HTML-only body converted. */
function bodyText(email: Record<string, unknown>): string {
  const parts = Array.isArray(email.textBody) ? email.textBody.map(asRecord) : [];
  const values = asRecord(email.bodyValues);
  return parts
    .map((part) => {
      const value = typeof part.partId === 'string' ? asRecord(values[part.partId]).value : undefined;
      if (typeof value !== 'string') return '';
      return part.type === 'text/html' ? htmlToText(value) : value;
    })
    .filter((text) => text !== '')
    .join('\n\n');
}

function addressesOf(value: unknown): { name?: string; email: string }[] {
  if (!Array.isArray(value)) return [];
  return value
    .map(asRecord)
    .flatMap((a) =>
      typeof a.email === 'string'
        ? [{ email: a.email, ...(typeof a.name === 'string' && a.name !== '' ? { name: a.name } : {}) }]
        : [],
    );
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
