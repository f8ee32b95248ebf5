import { MailboxError } from '../errors.js';
import type { JmapRequest, JmapResponse } from '../jmap/jmap-types.js';
import { callOf, mailRequest, strings, type Args } from './mail-method-answers.js';
import { queryReaders, refillReaders, type RefillDeps } from './refill-query-page.js';

/**
 * Totals and positions a screened reader can rely on. The server's `total`, `position`, `anchor` and
 * `/queryChanges` indexes count held mail too, so a filter on a held message's words, asked one word
 * at a time, would spell it out. Here they count the matches the screen shows, read from the start up
 * to a stated number.
 */

export interface ScreenedOrderDeps extends RefillDeps {
  /** Ids per scanning page (the server's maxObjectsInGet, at most). */
  pageSize: number;
  caps: ScreenedCaps;
  shownOf(ids: readonly string[]): Promise<ReadonlySet<string>>;
}

/** The default caps: a listing's count of up to 2,000 shown messages; a flood of held mail stops the count at 10,000 read. */
export const screenedCaps = { shown: 2_000, scanned: 10_000 };
export type ScreenedCaps = typeof screenedCaps;

// The scan sets its own position, limit and calculateTotal; these would move or narrow it.
const notScanned = new Set(['anchor', 'anchorOffset', 'sinceQueryState', 'maxChanges', 'upToId']);

/** Whether an Email/query answer's numbers depend on mail after its first page: a total, a position past 0, an anchor. */
export function countsPastPage(args: Args, answer: Args): boolean {
  return (
    args.calculateTotal === true ||
    typeof answer.total === 'number' ||
    (typeof args.position === 'number' && args.position !== 0) ||
    args.anchor != null
  );
}

/** Rewrites the Email/query answer at `index` (page, position, anchor, total, readers) over the shown matches only. */
export async function screenQueryOrder(
  request: JmapRequest,
  response: JmapResponse,
  index: number,
  deps: ScreenedOrderDeps,
): Promise<void> {
  const [, answer, callId] = response.methodResponses[index] as [string, Args, string];
  // Stryker disable next-line OptionalChaining: the screen calls this only for an answer whose call it found
  const args = callOf(request, 'Email/query', callId)?.[1] ?? {};
  const shown = (await shownOfWholePage(args, answer, deps)) ?? (await shownMatches(args, 'Email/query', deps));
  let start: number;
  if (args.anchor != null) {
    const at = shown.indexOf(String(args.anchor));
    if (at < 0) {
      // As the server answers an anchor it does not have.
      response.methodResponses[index] = [
        'error',
        { type: 'anchorNotFound', description: 'The anchor is not in the results; query again without it.' },
        callId,
      ];
      failReaders(request, response, callId);
      return;
    }
    start = Math.max(0, at + (typeof args.anchorOffset === 'number' ? args.anchorOffset : 0));
  } else {
    const position = typeof args.position === 'number' ? args.position : 0;
    start = position < 0 ? Math.max(0, shown.length + position) : position;
  }
  const limit = Math.min(
    typeof args.limit === 'number' ? args.limit : Infinity,
    typeof answer.limit === 'number' ? answer.limit : Infinity,
  );
  const ids = shown.slice(start, start + limit);
  answer.ids = ids;
  answer.position = start;
  if (args.calculateTotal === true || typeof answer.total === 'number') answer.total = shown.length;
  await matchReaders(request, response, callId, ids, deps);
}

/**
 * The Email/queryChanges answer at `index` over the shown matches: held and vanished ids out of `removed`
 * (the reader never had them), held ids out of `added`, each added index and the total counted anew.
 */
export async function screenQueryChanges(
  request: JmapRequest,
  response: JmapResponse,
  index: number,
  deps: ScreenedOrderDeps,
): Promise<void> {
  const [, answer, callId] = response.methodResponses[index] as [string, Args, string];
  // Stryker disable next-line OptionalChaining: the screen calls this only for an answer whose call it found
  const args = callOf(request, 'Email/queryChanges', callId)?.[1] ?? {};
  const removed = strings(answer.removed);
  if (removed.length > 0) {
    const shownRemoved = await deps.shownOf(removed);
    answer.removed = removed.filter((id) => shownRemoved.has(id));
  }
  const added: unknown[] = Array.isArray(answer.added) ? answer.added : [];
  if (added.length === 0 && args.calculateTotal !== true && typeof answer.total !== 'number') return;
  const shown = await shownMatches(args, 'Email/queryChanges', deps);
  const at = new Map(shown.map((id, i) => [id, i]));
  answer.added = added.flatMap((item) => {
    // Stryker disable next-line OptionalChaining: the screen's removeHeld has already kept only the entries that are objects
    const id = (item as Args | null)?.id;
    return typeof id === 'string' && at.has(id) ? [{ ...(item as Args), index: at.get(id) }] : [];
  });
  if (args.calculateTotal === true || typeof answer.total === 'number') answer.total = shown.length;
}

/** A `tooManyChanges` error counts held changes too: asked again without `maxChanges`, screened, the limit applied after. */
export async function screenTooManyChanges(
  request: JmapRequest,
  response: JmapResponse,
  index: number,
  deps: ScreenedOrderDeps,
): Promise<void> {
  const callId = response.methodResponses[index]?.[2] as string;
  const args = callOf(request, 'Email/queryChanges', callId)?.[1];
  if (typeof args?.maxChanges !== 'number') return;
  const { maxChanges, ...unlimited } = args;
  const again: JmapRequest = { using: request.using, methodCalls: [['Email/queryChanges', unlimited, callId]] };
  const answer = await deps.lookup(again);
  // Stryker disable next-line ConditionalExpression: an error answered again (the state expired meanwhile) keeps the first error
  if (answer.methodResponses[0]?.[0] !== 'Email/queryChanges') return;
  await screenQueryChanges(again, answer, 0, deps);
  const changes = answer.methodResponses[0][1];
  if (strings(changes.removed).length + (Array.isArray(changes.added) ? changes.added.length : 0) > maxChanges) return;
  response.methodResponses[index] = ['Email/queryChanges', changes, callId];
}

/**
 * The shown matches when the page holds as many ids as the server's total in the same query state:
 * then it holds every match from 0 (RFC 8620 §5.5), whatever position or anchor asked, and is judged
 * with no second query. Anything else (a later or cut page, references, past the caps) is shownMatches'.
 */
async function shownOfWholePage(args: Args, answer: Args, deps: ScreenedOrderDeps): Promise<string[] | undefined> {
  const ids = strings(answer.ids);
  if (typeof answer.total !== 'number' || ids.length !== answer.total) return undefined;
  if (ids.length > deps.caps.scanned || Object.keys(args).some((key) => key.startsWith('#'))) return undefined;
  const held = await deps.judge(ids, new Map());
  const shown = ids.filter((id) => !held.has(id));
  return shown.length > deps.caps.shown ? undefined : shown;
}

/** The ids a query matches that the screen shows, in the server's order, read from the start. */
async function shownMatches(args: Args, method: string, deps: ScreenedOrderDeps): Promise<string[]> {
  if (Object.keys(args).some((key) => key.startsWith('#')))
    throw cannotCount(method, "its arguments refer to another call's results", 'Pass the filter and sort literally');
  const query = Object.fromEntries(Object.entries(args).filter(([key]) => !notScanned.has(key)));
  const shown: string[] = [];
  let scanned = 0;
  for (;;) {
    const size = Math.max(1, Math.min(deps.pageSize, deps.caps.scanned + 1 - scanned));
    // Ids only: senders already judged in this process come from the cache, the rest in one lookup.
    const scan = { ...query, accountId: deps.accountId, position: scanned, limit: size, calculateTotal: true };
    const next = await deps.lookup(mailRequest(['Email/query', scan, 'q']));
    const [name, page] = next.methodResponses[0] ?? [];
    if (name !== 'Email/query' || !page)
      throw new MailboxError({
        code: 'jmap_request_error',
        message: `Counting the mail the operator's receive rules show failed: Email/query answered ${String(page?.type ?? 'nothing')}.`,
        hint: 'Nothing was shown. Run the request again; if it keeps failing, tell your operator.',
      });
    const ids = strings(page.ids);
    const held = await deps.judge(ids, new Map());
    for (const id of ids) if (!held.has(id)) shown.push(id);
    scanned += ids.length;
    if (shown.length > deps.caps.shown)
      throw cannotCount(method, `it matches more than ${deps.caps.shown} messages the operator's receive rules show`);
    if (scanned > deps.caps.scanned) throw cannotCount(method, `it matches more than ${deps.caps.scanned} messages`);
    // Stryker disable next-line ConditionalExpression: a total that is not a number compares false either way (scanned >= undefined)
    if (ids.length === 0 || (typeof page.total === 'number' && scanned >= page.total)) return shown;
  }
}

/** Each call reading the query's ids by back-reference now lists exactly the new page, in its order. */
async function matchReaders(
  request: JmapRequest,
  response: JmapResponse,
  queryCallId: string,
  ids: string[],
  deps: RefillDeps,
): Promise<void> {
  const wanted = new Set(ids);
  const readers = readerAnswers(request, response, queryCallId);
  const listed = new Set<string>();
  for (const { answer, key } of readers) {
    // Stryker disable next-line ArrayDeclaration: whatever stands in for a missing list names no wanted id and is filtered out
    answer.list = (Array.isArray(answer.list) ? answer.list : []).filter((item) =>
      wanted.has((item as Args | null)?.[key] as string),
    );
    answer.notFound = strings(answer.notFound).filter((id) => wanted.has(id));
    (answer.list as Args[]).forEach((item) => listed.add(item[key] as string));
    strings(answer.notFound).forEach((id) => listed.add(id));
  }
  const missing = ids.filter((id) => !listed.has(id));
  if (missing.length > 0) await refillReaders(request, response, queryCallId, missing, deps);
  const order = new Map(ids.map((id, i) => [id, i]));
  for (const { answer, key } of readers)
    (answer.list as Args[]).sort((a, b) => (order.get(a[key] as string) ?? 0) - (order.get(b[key] as string) ?? 0));
}

/** The readers of a query that failed: a back-reference to an error fails too (RFC 8620 §3.7). */
function failReaders(request: JmapRequest, response: JmapResponse, queryCallId: string): void {
  for (const { callId } of readerAnswers(request, response, queryCallId)) {
    const at = response.methodResponses.findIndex(([, , id]) => id === callId);
    response.methodResponses[at] = [
      'error',
      { type: 'invalidResultReference', description: 'The query it refers to failed.' },
      callId,
    ];
  }
}

function readerAnswers(
  request: JmapRequest,
  response: JmapResponse,
  queryCallId: string,
): { answer: Args; key: string; callId: string }[] {
  return queryReaders(request, queryCallId).flatMap(({ method, key, callId }) => {
    const answer = response.methodResponses.find(([name, , id]) => name === method && id === callId)?.[1];
    return answer ? [{ answer, key, callId }] : [];
  });
}

function cannotCount(
  method: string,
  why: string,
  next = 'Narrow the filter (a mailbox, `after`, `before`)',
): MailboxError {
  return new MailboxError({
    code: 'jmap_request_error',
    message: `This ${method} asks for a total, a position or indexes, which under the operator's receive rules are counted over the mail they show, and ${why}.`,
    hint: `${next}, or ask without calculateTotal and from position 0 (the screen then fills each page without counting).`,
  });
}
