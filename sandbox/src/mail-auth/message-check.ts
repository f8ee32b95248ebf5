import { PassThrough } from 'node:stream';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { claimsAuthservId, formatAuthenticationResults } from './authentication-results.js';
import { fieldNameOf, findHeaderEnd, headerSectionProblem, splitHeaderFields } from './header-fields.js';
import { judgeSender, type MethodResult, type SmtpIdentity, type VerdictContext } from './sender-verdict.js';

/**
 * What one message may cost the check. The header section is read whole before DKIM can start,
 * so it is capped (Exchange Online's limit); the body streams through the body hashes. Each
 * DKIM signature costs a key lookup and, with its own l= or canonicalization, a pass over the
 * body, so only the topmost few are verified (OpenDKIM verifies 3 by default).
 */
export const messageCheckLimits = { maxHeaderBytes: 256 * 1024, maxDkimSignatures: 5 } as const;

/** The end of a check: the verdict and how to put it on the message, or why the message is refused. */
export type CheckOutcome =
  | {
      kind: 'checked';
      results: MethodResult[];
      /** The Authentication-Results field (with its CRLF) the message gets on top. */
      field: string;
      /** The bytes the check read, with the field on top and the forged ones removed; chunks are joined in the one copy. */
      stamp(raw: Buffer | Buffer[]): Buffer;
    }
  /** `malformed`: the message itself is malformed (5.6.0), not merely too large (5.3.4). */
  | { kind: 'refused'; reason: string; malformed?: true };

/** A message being read: chunks in, then a verdict. */
export interface MessageCheck {
  /** The next bytes of the message; false when the caller should wait for `onDrain`. */
  write(chunk: Buffer): boolean;
  onDrain(listener: () => void): void;
  /** The message will not be delivered (too large, connection lost): stop and free what is held. */
  abandon(): void;
  finish(): Promise<CheckOutcome>;
}

export interface MessageCheckContext extends VerdictContext {
  /** DKIM's clock: signatures from the future or past their x= fail against it. */
  now(): number;
}

/** Starts checking one message from `identity` as its bytes arrive. */
export function startMessageCheck(identity: SmtpIdentity, ctx: MessageCheckContext): MessageCheck {
  let headerText = '';
  let refusal: string | undefined;
  let malformed = false;
  let header: { fields: string[]; fieldsEnd: number } | undefined;
  let feedsBody = false;
  // The tail of the body after its last line break, not yet given to the verifier (see feed).
  let partialLine: Buffer[] = [];
  // A generous buffer: the SMTP stream pauses on backpressure, so this bounds what waits here.
  const input = new PassThrough({ highWaterMark: 1024 * 1024 });
  const verifying = dkimVerify(input, {
    resolver: (name, type) => ctx.resolver.resolve(name, type) as Promise<string[] | string[][]>,
    ...(identity.sender ? { sender: identity.sender } : {}),
    curTime: new Date(ctx.now()),
  });
  // If the verifier fails it stops reading: the caller, paused on backpressure, must not wait
  // forever for a drain. Its bytes are then just kept, and finish() reports the failure.
  let hasFailed = false;
  const waiting = new Set<() => void>();
  verifying.catch(() => {
    hasFailed = true;
    for (const listener of waiting) listener();
    waiting.clear();
  });

  const beginBody = (fieldsEnd: number): void => {
    const fields = splitHeaderFields(headerText.slice(0, fieldsEnd));
    header = { fields, fieldsEnd };
    // Refused rather than repaired: any repair guesses what the sender meant, and a guess about
    // where the service's own field ends is what an attacker writes for.
    const problem = headerSectionProblem(fields);
    if (problem !== undefined) {
      refusal = problem;
      malformed = true;
      headerText = '';
      input.destroy();
      return;
    }
    let signatures = 0;
    const verified = fields.filter(
      (field) => fieldNameOf(field) !== 'dkim-signature' || (signatures += 1) <= messageCheckLimits.maxDkimSignatures,
    );
    // Without a signature there is no body hash to compute: the body need not pass through at all.
    feedsBody = verified.some((field) => ['dkim-signature', 'arc-message-signature'].includes(fieldNameOf(field)));
    input.write(Buffer.from(`${verified.join('')}\r\n`, 'latin1'));
    headerText = '';
  };

  /**
   * Gives the verifier whole lines only. mailauth's relaxed body hash joins an unfinished line
   * to each next chunk and scans it again, so a 25 MB line in 64 KiB chunks cost 8.5 s of CPU
   * (38 s in 16 KiB chunks); held back until its line break, it is hashed once (0.25 s).
   */
  const feed = (chunk: Buffer): boolean => {
    const lastBreak = chunk.lastIndexOf(0x0a);
    if (lastBreak < 0) {
      partialLine.push(chunk);
      return true;
    }
    const lines = partialLine.length
      ? Buffer.concat([...partialLine, chunk.subarray(0, lastBreak + 1)])
      : chunk.subarray(0, lastBreak + 1);
    partialLine = lastBreak + 1 < chunk.length ? [chunk.subarray(lastBreak + 1)] : [];
    return input.write(lines);
  };

  return {
    write(chunk) {
      if (refusal !== undefined || hasFailed) return true;
      if (header) return feedsBody ? feed(chunk) : true;
      const searchFrom = Math.max(0, headerText.length - 3);
      headerText += chunk.toString('latin1');
      const end = findHeaderEnd(headerText, searchFrom);
      if (!end) {
        if (headerText.length > messageCheckLimits.maxHeaderBytes) {
          refusal = `the header section exceeds the sandbox's limit of ${messageCheckLimits.maxHeaderBytes} bytes`;
          headerText = '';
          input.destroy();
        }
        return true;
      }
      if (end.fieldsEnd > messageCheckLimits.maxHeaderBytes) {
        refusal = `the header section exceeds the sandbox's limit of ${messageCheckLimits.maxHeaderBytes} bytes`;
        input.destroy();
        return true;
      }
      const rest = chunk.subarray(chunk.length - (headerText.length - end.bodyStart));
      beginBody(end.fieldsEnd);
      return feedsBody && rest.length > 0 ? feed(rest) : true;
    },
    onDrain(listener) {
      if (hasFailed) return listener();
      const once = (): void => {
        waiting.delete(once);
        input.off('drain', once);
        listener();
      };
      waiting.add(once);
      input.on('drain', once);
    },
    abandon() {
      refusal ??= 'abandoned';
      headerText = '';
      partialLine = [];
      input.destroy();
    },
    async finish() {
      if (refusal !== undefined)
        return { kind: 'refused', reason: refusal, ...(malformed ? { malformed: true as const } : {}) };
      // A message with no empty line is all header section (RFC 5322 §2.1: the body is optional).
      if (!header) beginBody(headerText.length);
      if (refusal !== undefined) return { kind: 'refused', reason: refusal, malformed: true };
      input.end(Buffer.concat(partialLine));
      const dkimResult = await verifying;
      const results = await judgeSender(dkimResult, identity, ctx);
      const field = formatAuthenticationResults(
        ctx.authservId,
        results.map((result) => result.text),
      );
      const { fields, fieldsEnd } = header as { fields: string[]; fieldsEnd: number };
      const kept = fields.filter((line) => !claimsAuthservId(line, ctx.authservId)).join('');
      return {
        kind: 'checked',
        results,
        field,
        stamp: (raw) =>
          Buffer.concat([
            Buffer.from(field + kept, 'latin1'),
            ...skipBytes(Array.isArray(raw) ? raw : [raw], fieldsEnd),
          ]),
      };
    },
  };
}

/** `chunks` without their first `count` bytes, sharing memory with them. */
function skipBytes(chunks: Buffer[], count: number): Buffer[] {
  let left = count;
  const rest: Buffer[] = [];
  for (const chunk of chunks) {
    if (left >= chunk.length) left -= chunk.length;
    else {
      rest.push(left > 0 ? chunk.subarray(left) : chunk);
      left = 0;
    }
  }
  return rest;
}
