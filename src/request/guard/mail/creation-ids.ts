import { isReadOnlyMethod } from '../../../gate/outgoing.js';
import type { JmapRequest } from '../../../jmap/jmap-types.js';
import { isRecord } from '../../../is-record.js';

/**
 * The creation ids of one batch (RFC 8620 §5.3: `#id` maps to the record last created under it, known
 * only after the batch ran), so an id defined twice or also in `createdIds` could send other mail than
 * judged; a creation map from a result reference defines ids nobody sees, which any later `#id` may name.
 */

/** The argument holding a method's creation map, for the methods that create. */
export function creationMapKey(method: string): string | undefined {
  if (method === 'MDN/send') return 'send';
  if (method === 'Email/import') return 'emails';
  // Blob/copy takes blobIds and answers with ids it keeps, not creation ids (RFC 8620 §6.3).
  if (method === 'Blob/copy') return undefined;
  if (method === 'Blob/upload' || method.endsWith('/set') || method.endsWith('/copy')) return 'create';
  return undefined;
}

/** Whether a value holds, anywhere, a string that reads as a creation-id reference. */
function holdsCreationReference(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith('#');
  if (Array.isArray(value)) return value.some(holdsCreationReference);
  if (!isRecord(value)) return false;
  return Object.entries(value).some(([key, inner]) => key.startsWith('#') || holdsCreationReference(inner));
}

/** What is wrong with the creation ids of a batch, one sentence each; empty when nothing is. */
export function creationIdProblems(request: JmapRequest): string[] {
  const problems: string[] = [];
  const listed = request.createdIds ?? {};
  const definedBy = new Map<string, string>();
  let hidden: string | undefined;
  request.methodCalls.forEach(([method, args, callId]) => {
    const call = `${method} (call ${callId})`;
    if (hidden !== undefined && !isReadOnlyMethod(method) && holdsCreationReference(args)) {
      problems.push(
        `${call} names a creation id or result, and ${hidden} takes what it creates from a result reference, so which record that names cannot be known before the request runs`,
      );
    }
    const key = creationMapKey(method);
    // Stryker disable next-line ConditionalExpression: without a key no argument is named `undefined` or `#undefined`, so nothing is read
    if (key === undefined) return;
    if (`#${key}` in args) hidden ??= call;
    const creates = args[key];
    if (!isRecord(creates)) return;
    for (const id of Object.keys(creates)) {
      const earlier = definedBy.get(id);
      if (earlier !== undefined)
        problems.push(
          `the creation id "${id}" is defined twice, by ${earlier} and by ${call}; the server maps #${id} to whichever create succeeds last, which is known only after the request ran`,
        );
      else if (id in listed)
        problems.push(
          `the creation id "${id}" is created by ${call} and also listed in the request's createdIds, so #${id} may name either`,
        );
      definedBy.set(id, call);
    }
  });
  return problems;
}
