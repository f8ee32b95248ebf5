/** Host names of a loopback redirect (RFC 8252 §7.3; `localhost` too, since many native clients use it). */
const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Longest redirect URI accepted; a real one is far shorter. */
const maxRedirectUriLength = 2000;

/**
 * Why a redirect URI cannot be registered, or undefined when it can: an absolute URI without a
 * fragment (RFC 6749 §3.1.2) that is https, http on a loopback host (RFC 8252 §7.3), or a
 * private-use scheme with a dot in it, reverse-domain style (RFC 8252 §7.1). The port of a
 * loopback URI is part of the string compared at authorization: a client registers its exact URI.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > maxRedirectUriLength) return `is longer than ${maxRedirectUriLength} characters`;
  if (!URL.canParse(uri)) return 'is not an absolute URI';
  const url = new URL(uri);
  if (url.hash !== '' || uri.includes('#')) return 'has a fragment, which RFC 6749 section 3.1.2 forbids';
  if (url.username !== '' || url.password !== '') return 'carries user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return loopbackHosts.has(url.hostname)
      ? undefined
      : 'uses http on a host that is not loopback; use https, or http://127.0.0.1:<port>/… for a native app (RFC 8252 section 7.3)';
  }
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol)) return undefined;
  return `uses the scheme ${url.protocol.slice(0, 20)} which is neither https, loopback http nor a reverse-domain private-use scheme (RFC 8252 section 7.1)`;
}

/** The CSP source that lets a form submission end at this redirect URI (its origin, or its scheme). */
export function formActionSourceOf(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
