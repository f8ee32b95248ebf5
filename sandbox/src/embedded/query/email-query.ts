import { addressText, type EmailFacts } from '../mime/email-facts.js';
import type { InboxAccount } from '../store/inbox-account.js';
import { sandboxLimits, sandboxLimitsCapability } from '../protocol/jmap-limits.js';
import { MethodError } from '../protocol/method-error.js';
import type { EmailRecord } from '../store/records.js';
import { isUtcDate } from '../methods/email/email-fields.js';

/** A filter tree of Email/query (RFC 8620 §5.5 operators, RFC 8621 §4.4.1 conditions). */
export type Filter = { operator: 'AND' | 'OR' | 'NOT'; conditions: Filter[] } | Record<string, unknown>;

/** One sort comparator (RFC 8620 §5.5). */
export interface Comparator {
  property: string;
  isAscending?: boolean;
  keyword?: string;
  collation?: string;
}

const sortKeys = new Set([
  'receivedAt',
  'sentAt',
  'size',
  'from',
  'to',
  'subject',
  'hasKeyword',
  'someInThreadHaveKeyword',
  'allInThreadHaveKeyword',
]);

/** The facts of the emails one query touches, from the inbox's parses (each derived once per message). */
export class FactsCache {
  constructor(private readonly account: InboxAccount) {}

  /** Facts of one email. */
  get(id: string): Promise<EmailFacts> {
    return this.account.facts(id);
  }

  /** The raw values of one email's top-level header fields of a name (case-insensitive), in order. */
  async fieldValues(id: string, name: string): Promise<readonly string[]> {
    return (await this.account.email(id)).fieldValues(name);
  }
}

/** What each condition's value must be (RFC 8621 §4.4.1); anything else is invalidArguments, never a silent mismatch. */
const conditionValue: Record<string, (value: unknown) => boolean> = {
  inMailbox: isString,
  inMailboxOtherThan: (value) => Array.isArray(value) && value.every(isString),
  before: isUtcDate,
  after: isUtcDate,
  minSize: isUnsignedInt,
  maxSize: isUnsignedInt,
  allInThreadHaveKeyword: isString,
  someInThreadHaveKeyword: isString,
  noneInThreadHaveKeyword: isString,
  hasKeyword: isString,
  notKeyword: isString,
  hasAttachment: (value) => typeof value === 'boolean',
  text: isString,
  from: isString,
  to: isString,
  cc: isString,
  bcc: isString,
  subject: isString,
  body: isString,
  header: (value) => Array.isArray(value) && value.length >= 1 && value.length <= 2 && value.every(isString),
};

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isUnsignedInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Checks a filter and sort before any email is touched: operators, condition names and value
 * types, plus the sandbox's bounds on filter size and depth. Returns the number of leaf conditions.
 */
export function checkQuery(filter: Filter | null | undefined, sort: Comparator[] | undefined): number {
  let nodes = 0;
  let leaves = 0;
  // Iterative, so a filter nested thousands deep cannot overflow the stack.
  const pending: Array<{ node: unknown; depth: number }> = filter ? [{ node: filter, depth: 1 }] : [];
  while (pending.length) {
    const { node, depth } = pending.pop() as { node: unknown; depth: number };
    nodes += 1;
    if (nodes > sandboxLimits.maxFilterConditions) {
      throw new MethodError(
        'unsupportedFilter',
        `The filter has more than ${sandboxLimits.maxFilterConditions} operators and conditions (maxFilterConditions of ${sandboxLimitsCapability}); split the query or use fewer conditions.`,
      );
    }
    if (depth > sandboxLimits.maxFilterDepth) {
      throw new MethodError(
        'unsupportedFilter',
        `The filter nests deeper than ${sandboxLimits.maxFilterDepth} levels (maxFilterDepth of ${sandboxLimitsCapability}); flatten it.`,
      );
    }
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw new MethodError(
        'invalidArguments',
        'Every filter and every entry of "conditions" must be an object (RFC 8620 §5.5).',
        { arguments: ['filter'] },
      );
    }
    const record = node as Record<string, unknown>;
    if ('operator' in record) {
      if (!['AND', 'OR', 'NOT'].includes(String(record['operator'])))
        throw new MethodError(
          'unsupportedFilter',
          `Unknown operator ${JSON.stringify(record['operator'])}; use AND, OR or NOT.`,
        );
      const conditions = record['conditions'];
      if (!Array.isArray(conditions) || Object.keys(record).some((key) => key !== 'operator' && key !== 'conditions')) {
        throw new MethodError(
          'invalidArguments',
          'A FilterOperator has exactly "operator" and a "conditions" array (RFC 8620 §5.5).',
          { arguments: ['filter'] },
        );
      }
      for (const child of conditions) pending.push({ node: child, depth: depth + 1 });
      continue;
    }
    leaves += 1;
    for (const [key, value] of Object.entries(record)) {
      const check = conditionValue[key];
      if (!check) throw new MethodError('unsupportedFilter', `Filter condition "${key}" is not supported.`);
      if (!check(value))
        throw new MethodError(
          'invalidArguments',
          `Filter condition "${key}" has a value of the wrong type (${JSON.stringify(value)?.slice(0, 60)}); see RFC 8621 §4.4.1.`,
          { arguments: ['filter'] },
        );
    }
  }
  for (const comparator of sort ?? []) {
    if (!sortKeys.has(comparator.property))
      throw new MethodError('unsupportedSort', `Sorting by "${comparator.property}" is not supported.`);
  }
  return leaves;
}

/** True when an email matches a filter tree. */
export async function matchesFilter(
  account: InboxAccount,
  email: EmailRecord,
  filter: Filter,
  facts: FactsCache,
): Promise<boolean> {
  if ('operator' in filter && Array.isArray(filter['conditions'])) {
    const results: boolean[] = [];
    for (const condition of filter['conditions'] as Filter[])
      results.push(await matchesFilter(account, email, condition, facts));
    if (filter.operator === 'AND') return results.every(Boolean);
    if (filter.operator === 'OR') return results.some(Boolean);
    return !results.some(Boolean);
  }
  const condition = filter as Record<string, unknown>;
  const contains = (haystack: string | null, needle: unknown): boolean =>
    (haystack ?? '').toLowerCase().includes(String(needle).toLowerCase());
  const thread = (): EmailRecord[] =>
    account.threadEmailIds(email.threadId).flatMap((id) => account.emails.get(id) ?? []);
  for (const [key, value] of Object.entries(condition)) {
    let isMatch: boolean;
    switch (key) {
      case 'inMailbox':
        isMatch = Boolean(email.mailboxIds[String(value)]);
        break;
      case 'inMailboxOtherThan':
        isMatch = Object.keys(email.mailboxIds).some((id) => !(value as string[]).includes(id));
        break;
      case 'before':
        isMatch = Date.parse(email.receivedAt) < Date.parse(String(value));
        break;
      case 'after':
        isMatch = Date.parse(email.receivedAt) >= Date.parse(String(value));
        break;
      case 'minSize':
        isMatch = email.size >= Number(value);
        break;
      case 'maxSize':
        isMatch = email.size < Number(value);
        break;
      case 'hasKeyword':
        isMatch = Boolean(email.keywords[String(value)]);
        break;
      case 'notKeyword':
        isMatch = !email.keywords[String(value)];
        break;
      case 'allInThreadHaveKeyword':
        isMatch = thread().every((member) => member.keywords[String(value)]);
        break;
      case 'someInThreadHaveKeyword':
        isMatch = thread().some((member) => member.keywords[String(value)]);
        break;
      case 'noneInThreadHaveKeyword':
        isMatch = !thread().some((member) => member.keywords[String(value)]);
        break;
      default:
        isMatch =
          key === 'header'
            ? await matchesHeader(value, (name) => facts.fieldValues(email.id, name), contains)
            : await matchesText(key, value, await facts.get(email.id), contains);
    }
    if (!isMatch) return false;
  }
  return true;
}

async function matchesText(
  key: string,
  value: unknown,
  facts: EmailFacts,
  contains: (haystack: string | null, needle: unknown) => boolean,
): Promise<boolean> {
  switch (key) {
    case 'hasAttachment':
      return facts.hasAttachment === Boolean(value);
    case 'from':
    case 'to':
    case 'cc':
    case 'bcc':
      return contains(addressText(facts[key]), value);
    case 'subject':
      return contains(facts.subject, value);
    case 'body':
      return contains(facts.bodyText, value);
    case 'text': {
      const names = facts.body.attachments.map((part) => part.name ?? '').join(' ');
      const all = [
        facts.subject,
        addressText(facts.from),
        addressText(facts.to),
        addressText(facts.cc),
        addressText(facts.bcc),
        facts.bodyText,
        names,
      ].join('\n');
      return contains(all, value);
    }
    default:
      throw new MethodError('unsupportedFilter', `Filter condition "${key}" is not supported.`);
  }
}

async function matchesHeader(
  value: unknown,
  fieldValues: (name: string) => Promise<readonly string[]>,
  contains: (haystack: string | null, needle: unknown) => boolean,
): Promise<boolean> {
  const [name, wanted] = Array.isArray(value) ? (value as unknown[]).map(String) : [];
  if (!name) throw new MethodError('invalidArguments', 'The header condition needs [name] or [name, value].');
  const values = await fieldValues(name);
  return wanted === undefined ? values.length > 0 : values.some((candidate) => contains(candidate, wanted));
}

/** Sorts emails (given in arrival order) by the comparators; ties fall back to newest first, so pages are stable. */
export async function sortEmails(
  account: InboxAccount,
  emails: EmailRecord[],
  sort: Comparator[],
  facts: FactsCache,
): Promise<EmailRecord[]> {
  const keyed = await Promise.all(
    emails.map(async (email, arrival) => ({
      email,
      arrival,
      keys: await Promise.all(sort.map((comparator) => sortKey(account, email, comparator, facts))),
    })),
  );
  keyed.sort((a, b) => {
    for (const [index, comparator] of sort.entries()) {
      const left = a.keys[index] ?? '';
      const right = b.keys[index] ?? '';
      const order =
        typeof left === 'number' && typeof right === 'number'
          ? left - right
          : String(left).localeCompare(String(right));
      if (order !== 0) return comparator.isAscending === false ? -order : order;
    }
    // receivedAt has whole seconds, so messages of one second fall back to arrival order, newest first.
    return b.email.receivedAt.localeCompare(a.email.receivedAt) || b.arrival - a.arrival;
  });
  return keyed.map((entry) => entry.email);
}

async function sortKey(
  account: InboxAccount,
  email: EmailRecord,
  comparator: Comparator,
  facts: FactsCache,
): Promise<string | number> {
  switch (comparator.property) {
    case 'receivedAt':
      return Date.parse(email.receivedAt);
    case 'size':
      return email.size;
    case 'hasKeyword':
      return email.keywords[comparator.keyword ?? ''] ? 1 : 0;
    case 'someInThreadHaveKeyword':
      return account
        .threadEmailIds(email.threadId)
        .some((id) => account.emails.get(id)?.keywords[comparator.keyword ?? ''])
        ? 1
        : 0;
    case 'allInThreadHaveKeyword':
      return account
        .threadEmailIds(email.threadId)
        .every((id) => account.emails.get(id)?.keywords[comparator.keyword ?? ''])
        ? 1
        : 0;
  }
  const emailFacts = await facts.get(email.id);
  switch (comparator.property) {
    case 'sentAt':
      return emailFacts.sentAt ? Date.parse(emailFacts.sentAt) : 0;
    case 'from':
    case 'to': {
      const first = emailFacts[comparator.property]?.[0];
      return (first?.name || first?.email || '').toLowerCase();
    }
    // RFC 8621 §4.4.2: subject sorts on the base subject, without Re:/Fwd: prefixes.
    default:
      return (emailFacts.subject ?? '').replace(/^(\s*(re|fwd?|aw|sv)\s*:\s*)+/i, '').toLowerCase();
  }
}
