import type { InboxAccount } from '../store/inbox-account.js';
import { sandboxLimits, sandboxLimitsCapability } from '../protocol/jmap-limits.js';
import { MethodError } from '../protocol/method-error.js';
import { EventLoopYielder } from './event-loop-yielder.js';
import { FactsCache, checkQuery, matchesFilter, sortEmails, type Comparator, type Filter } from './email-query.js';

/** The parts of Email/query and Email/queryChanges that decide the results (RFC 8621 §4.4). */
export interface EmailQuery {
  filter?: Filter | null | undefined;
  sort?: Comparator[] | null | undefined;
  collapseThreads?: boolean | undefined;
}

/** Runs a query over the whole account: the ids of every matching email, in order, before any paging. */
export async function runEmailQuery(account: InboxAccount, query: EmailQuery): Promise<string[]> {
  const leaves = checkQuery(query.filter, query.sort ?? undefined);
  if (leaves * account.emails.size > sandboxLimits.maxFilterWork) {
    throw new MethodError(
      'unsupportedFilter',
      `${leaves} conditions over ${account.emails.size} emails exceed maxFilterWork (${sandboxLimits.maxFilterWork}) of ${sandboxLimitsCapability}; use fewer conditions.`,
    );
  }
  const facts = new FactsCache(account);
  const matching = [];
  const yielder = new EventLoopYielder();
  for (const email of account.emails.values()) {
    if (!query.filter || (await matchesFilter(account, email, query.filter, facts))) matching.push(email);
    await yielder.maybeYield();
  }
  let sorted = await sortEmails(account, matching, query.sort ?? [], facts);
  if (query.collapseThreads) {
    const seen = new Set<string>();
    sorted = sorted.filter((email) => !seen.has(email.threadId) && Boolean(seen.add(email.threadId)));
  }
  return sorted.map((email) => email.id);
}

// Conditions and sort keys on mailboxIds or keywords, which Email/set changes (RFC 8621 §4.1.1).
const mutableConditions = new Set([
  'inMailbox',
  'inMailboxOtherThan',
  'hasKeyword',
  'notKeyword',
  'allInThreadHaveKeyword',
  'someInThreadHaveKeyword',
  'noneInThreadHaveKeyword',
]);
const mutableSorts = new Set(['hasKeyword', 'allInThreadHaveKeyword', 'someInThreadHaveKeyword']);
const threadConditions = new Set(['allInThreadHaveKeyword', 'someInThreadHaveKeyword', 'noneInThreadHaveKeyword']);

/** How a query's results can move (RFC 8620 §5.6): by updates at all, and by changes to other emails of a thread. */
export function queryMutability(query: EmailQuery): { isImmutable: boolean; isThreadWide: boolean } {
  const keys = conditionKeys(query.filter);
  const sorts = (query.sort ?? []).map((comparator) => comparator.property);
  const isThreadWide =
    Boolean(query.collapseThreads) ||
    keys.some((key) => threadConditions.has(key)) ||
    sorts.some((key) => key.includes('InThread'));
  const isImmutable =
    !isThreadWide && !keys.some((key) => mutableConditions.has(key)) && !sorts.some((key) => mutableSorts.has(key));
  return { isImmutable, isThreadWide };
}

function conditionKeys(filter: Filter | null | undefined): string[] {
  const keys: string[] = [];
  const pending: unknown[] = filter ? [filter] : [];
  while (pending.length) {
    const node = pending.pop() as Record<string, unknown>;
    if (Array.isArray(node['conditions'])) pending.push(...(node['conditions'] as unknown[]));
    else keys.push(...Object.keys(node));
  }
  return keys;
}
