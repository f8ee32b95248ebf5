import type { Capture } from './preset-schema.js';

/** The fixed set of capture transforms (reply threading rules from jmap.md "Replying"). */

type Transform = (value: unknown) => unknown;

const transforms: Record<NonNullable<Capture['transform']>, Transform> = {
  reply_subject: (value) => replySubject(typeof value === 'string' ? value : ''),
  reply_to: (email) => {
    const record = asRecord(email);
    const replyTo = record.replyTo;
    // The reference client used replyTo even when it was null; fall back to from.
    if (Array.isArray(replyTo) && replyTo.length > 0) return replyTo;
    return Array.isArray(record.from) ? record.from : undefined;
  },
  reply_references: (email) => {
    const record = asRecord(email);
    const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    const earlier = strings(record.references).length > 0 ? strings(record.references) : strings(record.inReplyTo);
    const all = [...earlier, ...strings(record.messageId)];
    return all.length > 0 ? all : null;
  },
};

/** Applies a named capture transform. */
export function applyTransform(name: Capture['transform'], value: unknown): unknown {
  return name ? transforms[name](value) : value;
}

/** `Re: ` once: never stacked on a subject that already starts with re: in any case. */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  return /^re\s*:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`;
}

/** Resolves an RFC 6901 JSON pointer; undefined when any segment is missing. */
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

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
