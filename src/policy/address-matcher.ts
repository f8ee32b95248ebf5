import { domainToASCII } from 'node:url';

/** One matcher for the operator's send and receive rules, so "example.org" means the same in both. */

/** A mailbox address normalised: domain in ASCII (IDN), lowercase, no trailing dot. */
export interface NormalisedAddress {
  address: string;
  local: string;
  domain: string;
}

/**
 * Forms already worked out, by their text: a session's screen judges every mail of every listing against the
 * same lists, and IDNA and parsing the entries were much of its work. Facts, never verdicts; bounded in count
 * (emptied when full) and length, as strangers' mail names domains without end.
 */
const known = { domains: new Map<string, string | null>(), entries: new Map<string, ListEntry | null>() };

function remembered<T>(map: Map<string, T | null>, text: string, work: (text: string) => T | undefined): T | undefined {
  // No domain or address is longer: such text is worked out afresh rather than kept.
  if (text.length > 320) return work(text);
  const seen = map.get(text);
  if (seen !== undefined) return seen ?? undefined;
  const found = work(text);
  if (map.size >= 4_096) map.clear();
  map.set(text, found ?? null);
  return found;
}

/** Lowercase ASCII form of a domain (IDN → punycode), trailing dot dropped; undefined when it is no domain. */
export function normaliseDomain(domain: string): string | undefined {
  return remembered(known.domains, domain, asciiDomain);
}

function asciiDomain(domain: string): string | undefined {
  const trimmed = domain.trim().replace(/\.$/, '');
  if (trimmed === '' || /[\s@<>"(),;:\\[\]]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || ascii.startsWith('.') || ascii.includes('..')) return undefined;
  return ascii;
}

/**
 * One bare address (`local@domain`). Local parts compare case-insensitively: no mail service in use is case-
 * sensitive, and a rule `Bob@x` slips past while `bob@x` is blocked is worse. `bob+x@d` is not `bob@d`.
 */
export function normaliseAddress(raw: string): NormalisedAddress | undefined {
  const text = raw.trim();
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) return undefined;
  let local = text.slice(0, at);
  if (local.startsWith('"') && local.endsWith('"') && local.length >= 2)
    local = local.slice(1, -1).replace(/\\(.)/g, '$1');
  else if (local.includes('@')) return undefined;
  if (local === '' || /[\r\n]/.test(local)) return undefined;
  const domain = normaliseDomain(text.slice(at + 1));
  if (!domain) return undefined;
  const lower = local.toLowerCase();
  return { address: `${lower}@${domain}`, local: lower, domain };
}

/** An operator's list entry: one address, or a domain that covers its subdomains too. */
type ListEntry = ({ kind: 'address' } & NormalisedAddress) | { kind: 'domain'; domain: string };

/** Parses an operator's list entry: an address (`ana@example.org`) or a domain (`example.org`, `@example.org`). */
export function parseListEntry(raw: string): ListEntry | undefined {
  return remembered(known.entries, raw, readListEntry);
}

function readListEntry(raw: string): ListEntry | undefined {
  const text = raw.trim();
  if (text.includes('@') && !text.startsWith('@')) {
    const parsed = normaliseAddress(text);
    return parsed ? Object.freeze({ kind: 'address', ...parsed }) : undefined;
  }
  const domain = normaliseDomain(text.replace(/^@/, ''));
  return domain && (domain.includes('.') || domain === 'localhost')
    ? Object.freeze({ kind: 'domain', domain })
    : undefined;
}

/** Whether `domain` is `parent` or one of its subdomains; `example.org.evil.test` is neither. */
export function isWithinDomain(domain: string, parent: string): boolean {
  return domain === parent || domain.endsWith(`.${parent}`);
}

/** The first entry of a list (stored spellings) that covers the address, if any. */
export function findMatch(list: readonly string[], address: NormalisedAddress): string | undefined {
  for (const stored of list) {
    const entry = parseListEntry(stored);
    if (!entry) continue;
    if (entry.kind === 'address' ? entry.address === address.address : isWithinDomain(address.domain, entry.domain))
      return stored;
  }
  return undefined;
}
