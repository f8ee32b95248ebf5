import type { JmapRequest, JmapResponse } from '../jmap/jmap-types.js';
import { callOf } from './mail-method-answers.js';

/**
 * Which answers found their messages by what the messages say. A count of held mail in such an
 * answer tells whether a held message contains the words searched for, so the screen keeps held
 * mail found this way out of the count it reports; what a mailbox, a date or a keyword finds is
 * reported as before (that held mail exists there is what the operator wants the agent to say).
 */

type Args = Record<string, unknown>;

const isRecord = (value: unknown): value is Args =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// RFC 8621 §4.4.1 conditions on where a message is, when it came, its size and flags; any other
// condition (text, from, subject, body, header) or one unknown here reads what the sender wrote.
const placeConditions = new Set([
  'inMailbox',
  'inMailboxOtherThan',
  'before',
  'after',
  'minSize',
  'maxSize',
  'allInThreadHaveKeyword',
  'someInThreadHaveKeyword',
  'noneInThreadHaveKeyword',
  'hasKeyword',
  'notKeyword',
  'hasAttachment',
]);

/** Whether a filter (conditions and operators, nested) reads what a message says, not only where it is. */
export function readsContent(filter: unknown): boolean {
  if (filter == null) return false;
  if (!isRecord(filter)) return true;
  if ('operator' in filter) return !Array.isArray(filter.conditions) || filter.conditions.some(readsContent);
  return Object.keys(filter).some((key) => !placeConditions.has(key));
}

/** Indexes of the answers that name messages a content filter found: the queries and the calls reading their ids. */
export function contentAnswerIndexes(request: JmapRequest, response: JmapResponse): Set<number> {
  const byContent = new Set<string>();
  for (const [method, args, callId] of request.methodCalls) {
    if (
      (method === 'Email/query' || method === 'Email/queryChanges') &&
      (readsContent(args.filter) || '#filter' in args)
    )
      byContent.add(callId);
  }
  const indexes = new Set<number>();
  response.methodResponses.forEach(([name, , callId], index) => {
    const args = callOf(request, name, callId)?.[1];
    const reference = args?.['#ids'] ?? args?.['#emailIds'];
    if (
      byContent.has(callId) ||
      (isRecord(reference) && typeof reference.resultOf === 'string' && byContent.has(reference.resultOf))
    )
      indexes.add(index);
  });
  return indexes;
}
