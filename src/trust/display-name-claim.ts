import { isWithinDomain, normaliseAddress, normaliseDomain, type NormalisedAddress } from '../policy/address-matcher.js';

/**
 * A display name that names another sender: `"ceo@bank.test" <x@evil.test>` or
 * `"PayPal.com Support" <x@evil.test>`. Mail clients show the name, not the address, so the name
 * is where a forger writes the identity it wants to borrow.
 */

// An address anywhere in the name; its parts are checked by the same parser as the rules use.
const addressInName = /[^\s<>"'()[\],;:]+@[^\s<>"'()[\],;:]+/gu;
// A domain-like word: labels of letters, digits and hyphens, a last label of 2–24 letters.
const domainInName = /(?<![\p{L}\p{N}@._-])(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24}(?![\p{L}\p{N}_-]|\.[\p{L}\p{N}])/gu;

/** What a display name claims that the real sender is not: another address, else another domain; undefined when it claims nothing. */
export function displayNameClaim(name: string | null | undefined, sender: NormalisedAddress): string | undefined {
  if (!name) return undefined;
  for (const match of name.matchAll(addressInName)) {
    const claimed = normaliseAddress(match[0].replace(/[.]+$/, ''));
    if (claimed && claimed.address !== sender.address) return claimed.address;
  }
  // Stryker disable next-line StringLiteral: an address ends at a character (space, bracket, quote, comma) no domain match may touch, so the filler never joins two words
  const withoutAddresses = name.replace(addressInName, ' ');
  for (const match of withoutAddresses.matchAll(domainInName)) {
    const claimed = normaliseDomain(match[0]);
    // A name that shows the sender's own organisation, above or below it, claims nothing new.
    if (claimed && !isWithinDomain(sender.domain, claimed) && !isWithinDomain(claimed, sender.domain)) return claimed;
  }
  return undefined;
}
