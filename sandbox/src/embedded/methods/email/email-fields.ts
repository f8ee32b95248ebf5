import { z } from 'zod';
import { MethodError } from '../../protocol/method-error.js';
import { resolveCreationId, type MethodContext } from '../method-context.js';

/** RFC 8620 §1.4 UTCDate: "2014-10-30T06:12:00Z", fractional seconds allowed. */
export function isUtcDate(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

/** RFC 8621 §4.1.1: 1–255 printable ASCII characters other than ( ) { ] % * " \ ; case-insensitive, stored lower-case. */
export function isKeyword(name: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(name) && !/[(){\]%*"\\]/.test(name);
}

/** Checks a keywords map (names → true) and returns it lower-cased; invalidProperties naming the bad keyword otherwise. */
export function checkKeywords(value: unknown, property = 'keywords'): Record<string, true> {
  const parsed = z.record(z.string(), z.literal(true)).safeParse(value);
  if (!parsed.success)
    throw new MethodError('invalidProperties', `${property} must map keyword names to true.`, {
      properties: [property],
    });
  const out: Record<string, true> = {};
  for (const name of Object.keys(parsed.data)) {
    if (!isKeyword(name))
      throw new MethodError(
        'invalidProperties',
        `"${name.slice(0, 60)}" is not a keyword: use 1-255 printable ASCII characters without ( ) { ] % * " \\ (RFC 8621 §4.1.1).`,
        { properties: [`${property}/${name}`] },
      );
    out[name.toLowerCase()] = true;
  }
  return out;
}

/** Checks a keyword path segment (`keywords/<name>` of a patch) and returns it lower-cased. */
export function checkKeywordName(name: string, path: string): string {
  if (!isKeyword(name))
    throw new MethodError('invalidProperties', `"${name.slice(0, 60)}" is not a keyword (RFC 8621 §4.1.1).`, {
      properties: [path],
    });
  return name.toLowerCase();
}

/** Resolves mailbox ids (creation ids of this request included, RFC 8620 §5.3) that must all exist; at least one. */
export function checkMailboxIds(ids: string[], ctx: MethodContext, property = 'mailboxIds'): Record<string, true> {
  const out: Record<string, true> = {};
  for (const requested of ids) {
    const id = resolveCreationId(requested, ctx);
    if (id === undefined || !ctx.account.mailbox(id)) {
      throw new MethodError(
        'invalidProperties',
        `Mailbox ${requested} does not exist; use Mailbox/get or Mailbox/query to find ids.`,
        { properties: [property] },
      );
    }
    out[id] = true;
  }
  if (!Object.keys(out).length)
    throw new MethodError('invalidProperties', `${property} needs at least one mailbox.`, { properties: [property] });
  return out;
}

/** The mailboxIds map of a create or import object, checked. */
export function checkMailboxMap(value: unknown, ctx: MethodContext): Record<string, true> {
  const parsed = z.record(z.string(), z.literal(true)).safeParse(value);
  if (!parsed.success)
    throw new MethodError('invalidProperties', 'mailboxIds must map mailbox ids to true.', {
      properties: ['mailboxIds'],
    });
  return checkMailboxIds(Object.keys(parsed.data), ctx);
}
