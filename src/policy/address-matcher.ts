import { domainToASCII } from 'node:url';
import { rememberedByText } from '../remembered.js';

/** One matcher for the operator's send and receive rules, so "example.org" means the same in both. */

/** A mailbox address normalised: domain in ASCII (IDN), lowercase, no trailing dot. */
export interface NormalisedAddress {
  address: string;
  local: string;
  domain: string;
}

/** Lowercase ASCII form of a domain (IDN → punycode), trailing dot dropped; undefined when it is no domain. */
export const normaliseDomain = rememberedByText(asciiDomain);

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
export const normaliseAddress = rememberedByText(readAddress);

function readAddress(raw: string): NormalisedAddress | undefined {
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
  return Object.freeze({ address: `${lower}@${domain}`, local: lower, domain });
}

/** An operator's list entry: one address, or a domain that covers its subdomains too. */
type ListEntry = ({ kind: 'address' } & NormalisedAddress) | { kind: 'domain'; domain: string };

/** Parses an operator's list entry: an address (`ana@example.org`) or a domain (`example.org`, `@example.org`). */
export const parseListEntry = rememberedByText(readListEntry);

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
