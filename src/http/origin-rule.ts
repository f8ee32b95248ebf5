import { MailboxError, settingRef } from '../errors.js';
import { rememberedByText } from '../remembered.js';

/**
 * Every request to the service carries a credential (bearer header, or the apiKey in the login body), so a redirect
 * is followed only within its origin: stripping the header as fetch does would still send the body.
 */

export class RedirectRefused extends Error {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    super(`redirect from ${from} to ${to} refused: credentials go only to the configured origin`);
  }
}

export function checkRedirect(from: URL, to: URL): void {
  // `to` as protocol and host: the same text as its origin for http(s), and still readable for a scheme without one.
  if (to.origin !== from.origin) throw new RedirectRefused(from.origin, `${to.protocol}//${to.host}`);
}

/** The origin of a URL or of a URL template whose placeholders lie after its authority; undefined when it cannot be known. */
export const originOfTemplate = rememberedByText(readOriginOfTemplate);

function readOriginOfTemplate(value: string): string | undefined {
  const authority = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(value);
  // A placeholder in the host or port would let a value chosen later pick the destination.
  if (!authority?.[2] || /[{}]/.test(authority[2])) return undefined;
  const text = `${authority[1]}${authority[2]}/`;
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.origin;
}

/** Whether `url` (or template) is on `origin` or on one the operator allowed. */
export function isOriginAllowed(url: string, origin: string, allowed: readonly string[]): boolean {
  const target = originOfTemplate(url);
  // Stryker disable next-line ConditionalExpression: an unknown origin equals no string; the test says so before the comparisons do
  return target !== undefined && (target === origin || allowed.includes(target));
}

/** The error of a followed redirect to another origin: the answer is not used and nothing is resent. */
export function redirectRefusedError(what: string, refused: RedirectRefused): MailboxError {
  return new MailboxError({
    code: 'bad_response',
    message: `${what}: ${refused.from} answered with a redirect to ${refused.to}, another origin; the request carries credentials, so it was not followed.`,
    hint: `Credentials go only to the configured ${settingRef('authUrl')} and ${settingRef('apiUrl')}. Check those settings; if the service really moved, configure its new address.`,
    details: { from: refused.from, to: refused.to },
  });
}
