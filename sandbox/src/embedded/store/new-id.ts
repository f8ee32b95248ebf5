import { randomBytes } from 'node:crypto';

/** A fresh JMAP id with a letter telling its kind (RFC 8620 §1.2: URL-safe characters only). */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(9).toString('hex')}`;
}
