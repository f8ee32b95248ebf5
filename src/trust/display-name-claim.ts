import { foldToAscii } from './confusables.js';
import {
  isWithinDomain,
  normaliseAddress,
  normaliseDomain,
  type NormalisedAddress,
} from '../policy/address-matcher.js';

/**
 * A display name that names another sender: `"ceo@bank.test" <x@evil.test>` or
 * `"PayPal.com Support" <x@evil.test>`. Mail clients show the name, not the address, so the name
 * is where a forger writes the identity it wants to borrow, and writes it with look-alikes
 * (`bank․test` with a one-dot leader, `ｂａｎｋ．ｔｅｓｔ`) when plain ASCII would be caught.
 */

// Words of the name: runs between the characters no address or domain may hold. Splitting first
// keeps the check linear in the name's length: a pattern that scans for `@` from every start is not.
const separators = /[\s<>"'()[\],;:]+/u;
// A domain-like word: labels of letters, digits and hyphens, a last label of 2–24 letters.
const domainInName =
  /(?<![\p{L}\p{N}@._-])(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24}(?![\p{L}\p{N}_-]|\.[\p{L}\p{N}])/gu;
// Longer than any address (RFC 5321: 64 + 1 + 255) or domain: no claim a parser would accept.
const longestAddress = 320;

/** What a display name claims that the real sender is not: another address, else another domain; undefined when it claims nothing. */
export function displayNameClaim(name: string | null | undefined, sender: NormalisedAddress): string | undefined {
  if (!name) return undefined;
  const words = foldToAscii(name).split(separators);
  // An address is a word with an `@` that has something on both sides.
  const isAddress = (word: string) => word.length >= 3 && word.slice(1, -1).includes('@');
  for (const word of words) {
    if (!isAddress(word) || word.length > longestAddress) continue;
    const claimed = normaliseAddress(word.replace(/[.]+$/, ''));
    if (claimed && claimed.address !== sender.address) return claimed.address;
  }
  // Stryker disable next-line StringLiteral: addresses are left out whole, and a separator never joins two words
  const rest = words.map((word) => (isAddress(word) ? '' : word)).join(' ');
  for (const match of rest.matchAll(domainInName)) {
    const claimed = normaliseDomain(match[0]);
    // A name that shows the sender's own organisation, above or below it, claims nothing new.
    if (claimed && !isWithinDomain(sender.domain, claimed) && !isWithinDomain(claimed, sender.domain)) return claimed;
  }
  return undefined;
}
