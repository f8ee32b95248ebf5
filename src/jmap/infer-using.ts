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
  const types = new Set(methodCalls.map(([method]) => method.split('/')[0]));
  // Beyond core and mail (RFC 8621 §6-7, RFC 9404 §4). Without a session (dry run) the need alone
  // decides, so the shown request is the one sent.
  const needs = [
    ...(types.has('EmailSubmission') || types.has('Identity') ? [jmapCapabilities.submission] : []),
    ...(types.has('Blob') ? [jmapCapabilities.blob] : []),
  ];
  return [
    jmapCapabilities.core,
    jmapCapabilities.mail,
    ...needs.filter((urn) => advertised === undefined || advertised.includes(urn)),
  ];
}
