import * as z from 'zod';
import { MailboxError, inputRef } from '../errors.js';
import { jmapCapabilities } from '../wire-constants.js';
import { invocationSchema, type Invocation } from './jmap-types.js';

const envelopeSchema = z.object({ using: z.array(z.string()).optional(), methodCalls: z.array(z.unknown()) });

/** Ops as JSON text or a value, a methodCalls array or an envelope: the calls, and the envelope's `using` if any. */
export function parseOps(ops: unknown, where = 'ops'): { methodCalls: Invocation[]; using?: string[] } {
  let value = ops;
  if (typeof ops === 'string')
    try {
      value = JSON.parse(ops) as unknown;
    } catch (error) {
      throw opsInvalid(`${where} is not valid JSON: ${(error as Error).message}`);
    }
  const envelope = Array.isArray(value)
    ? { methodCalls: value, using: undefined }
    : envelopeSchema.safeParse(value).data;
  if (!envelope) throw opsInvalid(`${where} must be a methodCalls array or an object with "methodCalls"`);
  const { methodCalls: calls, using } = envelope;
  if (calls.length === 0) throw opsInvalid(`${where} has no method calls`);
  const methodCalls = calls.map((call, i) => {
    const parsed = invocationSchema.safeParse(call);
    if (!parsed.success) throw opsInvalid(`${where} call #${i} is not ["Method/name", {arguments}, "callId"]`);
    return parsed.data;
  });
  return using ? { methodCalls, using } : { methodCalls };
}

/**
 * A request's `using`: an envelope's own as given; else core + mail (spec §2.9) and what the methods need, when
 * advertised (an unknown capability fails the whole request, RFC 8620 §3.6.1).
 */
export function inferUsing(
  methodCalls: readonly Invocation[],
  advertised: readonly string[] | undefined,
  envelopeUsing?: readonly string[],
): string[] {
  if (envelopeUsing) return [...envelopeUsing];
  const types = new Set(methodCalls.map(([method]) => method.split('/')[0]));
  // RFC 8621 §6-7, RFC 9404 §4; without a session (dry run) the need alone decides: the shown request is the sent one.
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

function opsInvalid(message: string): MailboxError {
  return new MailboxError({
    code: 'ops_invalid',
    message: `${message}.`,
    hint: `Write e.g. [["Email/query", {"accountId": "$ACCOUNT_ID", "limit": 10}, "q"]] or use a preset via ${inputRef('ops_file')} (help topics "jmap" and "presets").`,
    next: { operation: 'help', input: { topic: 'jmap' } },
  });
}
