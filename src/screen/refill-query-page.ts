import type { JmapRequest, JmapResponse } from '../jmap/jmap-types.js';
import { senderFactProperties, type SenderFacts } from '../trust/sender-authentication.js';
import { isRecord } from '../is-record.js';
import { callOf, factsInResponse, mailRequest, strings, type Args } from './mail-method-answers.js';

/**
 * A page of Email/query results that lost held messages is filled again from the mail after it, so a
 * listing of 20 still shows 20 when there are; the follow-up pages and readers go out as lookups.
 */

export interface RefillDeps {
  accountId: string;
  lookup(request: JmapRequest): Promise<JmapResponse>;
  /** Judges ids (recording the held ones for the call); returns the held ones. */
  judge(ids: readonly string[], known: ReadonlyMap<string, SenderFacts>): Promise<ReadonlySet<string>>;
}

/** At most this many follow-up pages per query: a flood of held mail ends the refill, not the call. */
const maxRounds = 5;
const maxPage = 256;

/** Fills the query answer at `index` back up by `missing` ids, and the calls that read its ids; in place. */
export async function refillQueryPage(
  request: JmapRequest,
  response: JmapResponse,
  index: number,
  page: { removed: number; served: number },
  deps: RefillDeps,
): Promise<void> {
  const [, answer, callId] = response.methodResponses[index] ?? [];
  const call = answer && callId !== undefined ? callOf(request, 'Email/query', callId) : undefined;
  if (!answer || !call || Object.keys(call[1]).some((key) => key.startsWith('#'))) return;
  const args = call[1];
  // Stryker disable next-line ConditionalExpression: without a limit the comparison below is false either way (served < undefined, served < served)
  const limit = typeof args.limit === 'number' ? args.limit : page.served;
  // The server gave less than a full page: there is nothing after it.
  if (page.served < limit) return;
  const { anchor: _anchor, anchorOffset: _offset, calculateTotal: _total, ...query } = args;
  const start = typeof answer.position === 'number' ? answer.position : 0;
  let scanned = page.served;
  const added: string[] = [];
  for (let round = 0; round < maxRounds && added.length < page.removed; round++) {
    const size = Math.min(maxPage, Math.max(20, (page.removed - added.length) * 2));
    const queryIds = { resultOf: 'q', name: 'Email/query', path: '/ids' };
    const get = { accountId: deps.accountId, '#ids': queryIds, properties: ['id', ...senderFactProperties] };
    const next = await deps.lookup(
      mailRequest(['Email/query', { ...query, position: start + scanned, limit: size }, 'q'], ['Email/get', get, 'f']),
    );
    const ids = strings(next.methodResponses.find(([name, , id]) => name === 'Email/query' && id === 'q')?.[1].ids);
    scanned += ids.length;
    const held = await deps.judge(ids, factsInResponse(next, 'f'));
    for (const id of ids) if (!held.has(id) && added.length < page.removed) added.push(id);
    if (typeof answer.total === 'number')
      answer.total = Math.max(0, answer.total - ids.filter((id) => held.has(id)).length);
    if (ids.length < size) break;
  }
  if (added.length === 0) return;
  answer.ids = [...(Array.isArray(answer.ids) ? answer.ids : []), ...added];
  await refillReaders(request, response, callId as string, added, deps);
}

/** The methods that read a query's ids: the argument holding them, and the property naming each item's message. */
const readerKeys = new Map<string, [string, string]>([
  ['Email/get', ['ids', 'id']],
  ['SearchSnippet/get', ['emailIds', 'emailId']],
]);

/** The calls of the request that read the Email/query call `queryCallId`'s ids by back-reference. */
export function queryReaders(
  request: JmapRequest,
  queryCallId: string,
): { method: string; args: Args; callId: string; idsKey: string; key: string; reference: Args }[] {
  return request.methodCalls.flatMap(([method, args, callId]) => {
    const keys = readerKeys.get(method);
    const reference = keys ? args[`#${keys[0]}`] : undefined;
    if (!keys || !isRecord(reference) || reference.resultOf !== queryCallId) return [];
    // Stryker disable next-line all: a reference naming another method fails on the server (RFC 8620 §3.7), so its reader has no answer to rewrite or refill
    if (reference.name !== 'Email/query') return [];
    return [{ method, args, callId, idsKey: keys[0], key: keys[1], reference }];
  });
}

/** The calls that read the query's ids through a back-reference, run again for the added ids, their answers appended. */
export async function refillReaders(
  request: JmapRequest,
  response: JmapResponse,
  queryCallId: string,
  added: string[],
  deps: RefillDeps,
): Promise<void> {
  const readers = queryReaders(request, queryCallId).flatMap(({ method, args, callId, idsKey, reference }) => {
    if (!['/ids', '/ids/*'].includes(String(reference.path))) return [];
    const { [`#${idsKey}`]: _reference, ...rest } = args;
    if (Object.keys(rest).some((k) => k.startsWith('#'))) return [];
    return [{ method, callId, args: { ...rest, [idsKey]: added } }];
  });
  if (readers.length === 0) return;
  const answers = await deps.lookup({
    using: request.using,
    methodCalls: readers.map((r, i) => [r.method, r.args, `r${i}`] as [string, Args, string]),
  });
  readers.forEach((reader, i) => {
    const got = answers.methodResponses.find(([name, , id]) => name === reader.method && id === `r${i}`)?.[1];
    const target = response.methodResponses.find(([name, , id]) => name === reader.method && id === reader.callId)?.[1];
    if (!got || !target) return;
    target.list = [...(Array.isArray(target.list) ? target.list : []), ...(Array.isArray(got.list) ? got.list : [])];
    if (Array.isArray(got.notFound) && got.notFound.length > 0)
      target.notFound = [...(Array.isArray(target.notFound) ? target.notFound : []), ...got.notFound];
  });
}
