import { jmapCapabilities } from '../wire-constants.js';
import type { Invocation } from './jmap-types.js';

/**
 * The `using` list of a request. An envelope's own list is kept as given. A bare methodCalls array
 * gets the spec's default (core + mail, §2.9) plus what its methods need, when the server
 * advertises it: listing an unknown capability fails the whole request (RFC 8620 §3.6.1).
 */
export function inferUsing(
  methodCalls: readonly Invocation[],
  advertised: readonly string[] | undefined,
  envelopeUsing?: readonly string[],
): string[] {
  if (envelopeUsing) return [...envelopeUsing];
  const using: string[] = [jmapCapabilities.core, jmapCapabilities.mail];
  const needs = new Set<string>();
  for (const [method] of methodCalls) {
    const needed = capabilityOfMethod(method);
    if (needed) needs.add(needed);
  }
  for (const urn of [jmapCapabilities.submission, jmapCapabilities.blob]) {
    // Without a session (dry run) the need alone decides, so the shown request is the one sent.
    if (needs.has(urn) && (advertised === undefined || advertised.includes(urn))) using.push(urn);
  }
  return using;
}

/** The capability a method belongs to beyond core/mail, if any (RFC 8621 §6-7, RFC 9404 §4). */
export function capabilityOfMethod(method: string): string | undefined {
  const type = method.split('/')[0];
  if (type === 'EmailSubmission' || type === 'Identity') return jmapCapabilities.submission;
  if (type === 'Blob') return jmapCapabilities.blob;
  return undefined;
}
