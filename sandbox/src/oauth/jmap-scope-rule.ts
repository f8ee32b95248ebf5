import type { OAuthScope } from './oauth-scopes.js';

/**
 * Methods that make the service send mail. EmailSubmission/set sends (spec §4.2 rule 7); a
 * vacation response and a Sieve script send on their own, to whoever writes in (RFC 8621 §8,
 * RFC 9661), so a read-only grant could otherwise make the service mail out text of its choosing.
 */
const sendingMethods: ReadonlySet<string> = new Set(['EmailSubmission/set', 'VacationResponse/set', 'SieveScript/set']);

/** The scope a JMAP method needs: mail.send for a sending method, mail.read for every other (spec §4.2 rule 7). */
export function scopeForMethod(name: string): OAuthScope {
  return sendingMethods.has(name) ? 'mail.send' : 'mail.read';
}

/**
 * The first scope a JMAP request body needs that the grant lacks, with the method that needs it;
 * undefined when it has them all, or when the body is no JMAP request (the mail store then says so).
 */
export function missingScopeOf(
  body: unknown,
  granted: readonly OAuthScope[],
): { scope: OAuthScope; method: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const calls = (body as { methodCalls?: unknown }).methodCalls;
  if (!Array.isArray(calls)) return undefined;
  for (const call of calls) {
    const name: unknown = Array.isArray(call) ? call[0] : undefined;
    if (typeof name !== 'string') continue;
    const scope = scopeForMethod(name);
    if (!granted.includes(scope)) return { scope, method: name };
  }
  return undefined;
}

/** What a request to the JMAP host is, by method and path (both backends' URL layouts). */
export type JmapRequestKind = 'session' | 'api' | 'upload' | 'download' | 'events' | 'other';

/** Classifies a JMAP host request. */
export function jmapRequestKind(method: string, path: string): JmapRequestKind {
  if (/(^|\/)upload\//.test(path)) return 'upload';
  if (/(^|\/)download\//.test(path)) return 'download';
  if (/(^|\/)eventsource(\/|$)/.test(path)) return 'events';
  if (method === 'GET' && (path === '/.well-known/jmap' || /^\/jmap\/?$/.test(path))) return 'session';
  if (method === 'POST') return 'api';
  return 'other';
}

/** The scope a request needs before its body is read: the session and uploads need either; reading mail needs mail.read. */
export function scopeForRequest(kind: JmapRequestKind): OAuthScope | undefined {
  return kind === 'session' || kind === 'upload' || kind === 'api' ? undefined : 'mail.read';
}
