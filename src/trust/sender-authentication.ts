import { deepFreeze } from '../deep-freeze.js';
import { normaliseAddress, normaliseDomain, type NormalisedAddress } from '../policy/address-matcher.js';
import { authservIdOf, parseAuthenticationResults, sameAuthservId, type AuthResult } from './authentication-results.js';

/**
 * Whether a received message's From domain is authenticated, as the receiving service recorded it.
 * Only the topmost Authentication-Results field with the service's authserv-id counts: the service
 * adds its own above all and removes forged ones with its id (RFC 8601 §5); any other is the
 * sender's word or another hop's. Authenticated means DMARC passed for the From domain (RFC 7489
 * §3): SPF or DKIM alone can pass for a domain other than the one the reader sees.
 */

/** The property a message's Authentication-Results fields are read through (RFC 8621 §4.1.3): raw, every instance, in order. */
export const authenticationResultsProperty = 'header:Authentication-Results:asRaw:all';

/** The Email properties sender facts come from: every author address and the Sender are judged. */
export const senderFactProperties = ['from', 'sender', authenticationResultsProperty] as const;

type AddressObject = { name?: string | null; email?: string | null };

/** What the message itself says: its From addresses, its Sender, and its Authentication-Results fields, top first. */
export interface SenderFacts {
  from: AddressObject[];
  /** The Sender field's addresses; undefined when the answer did not carry the property. */
  sender?: AddressObject[];
  authenticationResults: string[];
}

/**
 * `pass`: DMARC passed for the From domain; `unverified`: our field holds another DMARC result for it
 * (fail, none, temperror…) or several, or From is not one address; `no-result`: no field of ours, or no
 * DMARC result in it for the From domain.
 */
type SenderVerdict = 'pass' | 'unverified' | 'no-result';

export interface SenderAuthentication {
  verdict: SenderVerdict;
  authenticated: boolean;
  authservId: string;
  /** The single From address, normalised; absent when From holds none or several. */
  sender?: NormalisedAddress;
  /** DMARC's result for the From domain, lower case (`fail`, `none`, …), when our field holds exactly one. */
  dmarc?: string;
  /** Short, for a listing: `dmarc=fail`, `no Authentication-Results from agent-mailbox.test`. */
  reason?: string;
  /** Every result of the field that was trusted. */
  results?: AuthResult[];
}

/**
 * Reads a message's sender facts from an Email object; undefined when it lacks `from` or the
 * Authentication-Results property, or (`withSender`, what the receive screen needs) `sender`.
 */
export function senderFactsOf(
  email: Readonly<Record<string, unknown>>,
  options: { withSender?: boolean } = {},
): SenderFacts | undefined {
  const from = email.from;
  const fields = email[authenticationResultsProperty];
  if (from !== null && !Array.isArray(from)) return undefined;
  if (!Array.isArray(fields) || !fields.every((field) => typeof field === 'string')) return undefined;
  const sender = email.sender;
  if (options.withSender === true && sender !== null && !Array.isArray(sender)) return undefined;
  return {
    from: addressObjects(from),
    ...(sender === null || Array.isArray(sender) ? { sender: addressObjects(sender) } : {}),
    authenticationResults: fields as string[],
  };
}

function addressObjects(list: unknown[] | null): AddressObject[] {
  // Stryker disable next-line ArrayDeclaration: the filter keeps only objects, so a null list reads as empty whatever stands in for it
  return (list ?? []).filter((a): a is AddressObject => typeof a === 'object' && a !== null);
}

/** Whether the message came in through the service: it carries a field of the service's authserv-id. */
export function cameInThrough(facts: SenderFacts, authservId: string): boolean {
  // Stryker disable next-line StringLiteral: any text there matches no authserv-id, as the empty one does not
  return facts.authenticationResults.some((value) => sameAuthservId(authservIdOf(value) ?? '', authservId));
}

/**
 * Each reading by the fields it read: a long session lists the same mail on every call and the screen
 * judges it again, and parsing Authentication-Results was much of a listing's work. It depends on the
 * message and the authserv-id only, never the rules, so nothing is dropped when they change. Bounded
 * in entries and key size (a hostile header section is read afresh rather than kept).
 */
const authenticated = new Map<string, SenderAuthentication>();
export const senderAuthenticationCacheBounds = { entries: 2_000, keyChars: 16_384 };

/** The verdict for a message's From domain under the service's authserv-id. */
export function authenticateSender(facts: SenderFacts, authservId: string): SenderAuthentication {
  const key = JSON.stringify([authservId, facts.from, facts.authenticationResults]);
  const known = authenticated.get(key);
  if (known) return known;
  const judged = deepFreeze(readSenderAuthentication(facts, authservId));
  if (key.length <= senderAuthenticationCacheBounds.keyChars) {
    if (authenticated.size >= senderAuthenticationCacheBounds.entries)
      authenticated.delete(authenticated.keys().next().value as string);
    authenticated.set(key, judged);
  }
  return judged;
}

/** How many messages' readings are kept (tests check the bound). */
export function senderAuthenticationCacheSize(): number {
  return authenticated.size;
}

function readSenderAuthentication(facts: SenderFacts, authservId: string): SenderAuthentication {
  // The sender is From's address when it holds exactly one that parses.
  // Stryker disable next-line OptionalChaining: From holds exactly one object where it is read
  const email = facts.from.length === 1 ? facts.from[0]?.email : undefined;
  const sender = typeof email === 'string' ? normaliseAddress(email) : undefined;
  const base = { authservId, ...(sender ? { sender } : {}) };
  if (sender) return { ...base, ...judgeDomain(facts.authenticationResults, authservId, sender.domain) };
  const judged = judgeDomain(facts.authenticationResults, authservId, undefined);
  if (!judged.results) return { ...base, ...judged };
  const count = facts.from.length;
  return {
    ...base,
    verdict: 'unverified',
    authenticated: false,
    reason: count === 0 ? 'no From address' : `${count} From addresses`,
    results: judged.results,
  };
}

/** What the topmost field of `authservId` says of DMARC for `domain` (undefined: only the field is read); the `known` mode asks it too. */
export function judgeDomain(
  fields: readonly string[],
  authservId: string,
  domain: string | undefined,
): Omit<SenderAuthentication, 'authservId' | 'sender'> {
  const judged = (verdict: SenderVerdict, rest: { reason?: string; dmarc?: string; results?: AuthResult[] }) => ({
    verdict,
    authenticated: verdict === 'pass',
    ...rest,
  });
  const field = fields.find((value) => {
    const id = authservIdOf(value);
    return id !== undefined && sameAuthservId(id, authservId);
  });
  if (field === undefined) return judged('no-result', { reason: `no Authentication-Results from ${authservId}` });
  // The topmost field of ours decides even when it cannot be read: a forged one further down never stands in for it.
  const ours = parseAuthenticationResults(field);
  if (!ours) return judged('no-result', { reason: `unreadable Authentication-Results from ${authservId}` });
  const results = ours.results;
  if (domain === undefined) return judged('unverified', { results });
  // A service writes one DMARC result per message (RFC 7489 §6.6.1). Several in its field mean
  // text that is not the service's stands in it: no one of them is taken, pass or not.
  const dmarc = results.filter((r) => r.method === 'dmarc');
  if (dmarc.length > 1) {
    const conflicting = new Set(dmarc.map((r) => r.result)).size > 1 ? 'conflicting ' : '';
    return judged('unverified', { reason: `${dmarc.length} ${conflicting}dmarc results`, results });
  }
  const [only] = dmarc;
  if (only === undefined) return judged('no-result', { reason: 'no dmarc result', results });
  if (!appliesTo(only, domain)) return judged('no-result', { reason: 'dmarc result for another domain', results });
  if (only.result === 'pass') return judged('pass', { dmarc: 'pass', results });
  return judged('unverified', { dmarc: only.result, reason: `dmarc=${only.result}`, results });
}

/** A DMARC result speaks for the From domain it names (header.from); one that names none is taken as about From. */
function appliesTo(result: AuthResult, domain: string): boolean {
  const named = result.properties['header.from'];
  if (named === undefined) return true;
  return normaliseDomain(named.replace(/^.*@/, '')) === domain;
}
