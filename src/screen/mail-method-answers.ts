import { isRecord } from '../is-record.js';
import type { Invocation, JmapRequest, JmapResponse } from '../jmap/jmap-types.js';
import { senderFactsOf, type SenderFacts } from '../trust/sender-authentication.js';
import { jmapCapabilities } from '../wire-constants.js';

/** The mail methods' answers as the receive screen reads them (ids named, sender facts) and rewrites them (held mail out). */

export type Args = Record<string, unknown>;

export const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
const records = (value: unknown): Args[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** Every email id the answers name (Email/get, /query, /queryChanges, /changes, Thread/get, SearchSnippet/get). */
export function namedEmailIds(response: JmapResponse): Set<string> {
  const ids = new Set<string>();
  for (const [name, args] of response.methodResponses) {
    if (name === 'Email/get') records(args.list).forEach((e) => typeof e.id === 'string' && ids.add(e.id));
    else if (name === 'Email/query') strings(args.ids).forEach((id) => ids.add(id));
    else if (name === 'Email/queryChanges')
      records(args.added).forEach((a) => typeof a.id === 'string' && ids.add(a.id));
    else if (name === 'Email/changes')
      [...strings(args.created), ...strings(args.updated)].forEach((id) => ids.add(id));
    else if (name === 'Thread/get') records(args.list).forEach((t) => strings(t.emailIds).forEach((id) => ids.add(id)));
    else if (name === 'SearchSnippet/get')
      records(args.list).forEach((s) => typeof s.emailId === 'string' && ids.add(s.emailId));
  }
  return ids;
}

/** Sender facts the response's Email/get lists (or only the call `onlyCallId`'s) already carry, when they asked for From, Sender and Authentication-Results. */
export function factsInResponse(response: JmapResponse, onlyCallId?: string): Map<string, SenderFacts> {
  const facts = new Map<string, SenderFacts>();
  for (const [name, args, callId] of response.methodResponses) {
    if (name !== 'Email/get' || (onlyCallId !== undefined && callId !== onlyCallId)) continue;
    for (const email of records(args.list)) {
      const found = typeof email.id === 'string' ? senderFactsOf(email, { withSender: true }) : undefined;
      if (found) facts.set(email.id as string, found);
    }
  }
  return facts;
}

/** A request of the screen's own lookups: the mail methods only. */
export function mailRequest(...methodCalls: Invocation[]): JmapRequest {
  return { using: [jmapCapabilities.core, jmapCapabilities.mail], methodCalls };
}

export function callOf(request: JmapRequest, name: string, callId: string): Invocation | undefined {
  return request.methodCalls.find(([method, , id]) => method === name && id === callId);
}

/**
 * Takes held mail out of every answer, in place: held ids asked for by id become notFound and `requested`;
 * `queries`: by index, each Email/query answer that lost ids, how many of how many served.
 */
export function removeHeld(request: JmapRequest, response: JmapResponse, isHeld: (id: string) => boolean) {
  const removal = { queries: new Map<number, { removed: number; served: number }>(), requested: new Set<string>() };
  response.methodResponses.forEach(([name, args, callId], index) => {
    if (name === 'Email/get' || name === 'SearchSnippet/get') {
      const key = name === 'Email/get' ? 'id' : 'emailId';
      const list = records(args.list);
      const kept = list.filter((item) => !(typeof item[key] === 'string' && isHeld(item[key] as string)));
      if (kept.length !== list.length) args.list = kept;
      const asked = strings(callOf(request, name, callId)?.[1][name === 'Email/get' ? 'ids' : 'emailIds']);
      const heldAsked = [...new Set(asked.filter(isHeld))];
      if (heldAsked.length > 0) {
        heldAsked.forEach((id) => removal.requested.add(id));
        args.notFound = [...strings(args.notFound), ...heldAsked.filter((id) => !strings(args.notFound).includes(id))];
      }
    } else if (name === 'Email/query') {
      const ids = strings(args.ids);
      const kept = ids.filter((id) => !isHeld(id));
      if (kept.length !== ids.length) {
        args.ids = kept;
        if (typeof args.total === 'number') args.total = Math.max(0, args.total - (ids.length - kept.length));
        removal.queries.set(index, { removed: ids.length - kept.length, served: ids.length });
      }
    } else if (name === 'Email/queryChanges') {
      args.added = records(args.added).filter((a) => !(typeof a.id === 'string' && isHeld(a.id)));
    } else if (name === 'Email/changes') {
      args.created = strings(args.created).filter((id) => !isHeld(id));
      args.updated = strings(args.updated).filter((id) => !isHeld(id));
    } else if (name === 'Thread/get') {
      // A thread of nothing but held mail is left out whole: its id alone says such mail exists.
      const emptied = new Set<string>();
      for (const thread of records(args.list)) {
        const before = strings(thread.emailIds);
        thread.emailIds = before.filter((id) => !isHeld(id));
        if (before.length > 0 && (thread.emailIds as string[]).length === 0 && typeof thread.id === 'string')
          emptied.add(thread.id);
      }
      if (emptied.size > 0) {
        args.list = records(args.list).filter((thread) => !emptied.has(thread.id as string));
        const asked = strings(callOf(request, name, callId)?.[1].ids).filter((id) => emptied.has(id));
        if (asked.length > 0) args.notFound = [...strings(args.notFound), ...asked];
      }
    }
  });
  return removal;
}

/** Blob/get reads any blob by id, and no method says which message a blob belongs to: under receive rules its answers are withheld. */
export function withholdBlobReads(response: JmapResponse): number {
  let withheld = 0;
  for (const [name, args] of response.methodResponses) {
    if (name !== 'Blob/get') continue;
    const ids = records(args.list).flatMap((blob) => (typeof blob.id === 'string' ? [blob.id] : []));
    withheld += ids.length;
    args.list = [];
    args.notFound = [...strings(args.notFound), ...ids];
  }
  return withheld;
}

/** Email/parse answers: each parsed message by its blob id, for judging by its own headers. */
export function parsedMessages(response: JmapResponse): { index: number; blobId: string; email: Args }[] {
  const out: { index: number; blobId: string; email: Args }[] = [];
  response.methodResponses.forEach(([name, args], index) => {
    if (name !== 'Email/parse' || !isRecord(args.parsed)) return;
    for (const [blobId, email] of Object.entries(args.parsed)) if (isRecord(email)) out.push({ index, blobId, email });
  });
  return out;
}

export function dropParsed(response: JmapResponse, index: number, blobId: string): void {
  // Stryker disable next-line OptionalChaining: the screen passes only the index of an Email/parse answer parsedMessages found
  const args = response.methodResponses[index]?.[1];
  // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral: as above; that answer has a parsed object
  if (!args || !isRecord(args.parsed)) return;
  delete args.parsed[blobId];
  args.notFound = [...strings(args.notFound), blobId];
}

/**
 * Which answers found their messages by what they say: a count of held mail there would tell whether
 * a held message holds the words searched for, so it is not reported; held mail a mailbox, date or
 * keyword finds is (that it exists is what the operator wants said). These RFC 8621 §4.4.1
 * conditions read where a message is, when it came, its size and flags; any other reads its content.
 */
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
