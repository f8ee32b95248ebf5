import { automaticHeaderProperties, automaticReason } from '../mail/automatic-mail.js';
import * as z from 'zod';
import { MailboxError } from '../errors.js';
import { clip, shownLimits, shownName } from '../present/shown-limits.js';
import { senderFactProperties } from '../trust/sender-authentication.js';
import { changesResponseSchema, type Invocation } from '../jmap/jmap-types.js';

export type JmapCall = Invocation;

/** All the wake needs from a JMAP client. */
export interface JmapCaller {
  request(methodCalls: JmapCall[]): Promise<JmapCall[]>;
}

export interface NewMailItem {
  id: string;
  from: string;
  subject: string;
  receivedAt: string;
  /** Why the message is automatic mail (RFC 3834), when it is: never to be answered automatically. */
  automatic?: string;
  /** From, Sender, Authentication-Results, for the digest's sender verdict. */
  senderFacts?: Record<string, unknown>;
}

export interface NewMail {
  /** Email state to store once the mail has been handled. */
  state: string;
  /** Newest first, at most `maxItems` of `total`. */
  items: NewMailItem[];
  total: number;
  /** changes: since the stored state; first-run / resync: the last `windowMs` by receivedAt. */
  mode: 'changes' | 'first-run' | 'resync';
}

interface FetchNewMailOptions {
  jmap: JmapCaller;
  accountId: string;
  /** wakeState of the last successful wake; absent on the first run. */
  sinceState?: string;
  now: Date;
}

const emailSchema = z.looseObject({
  id: z.string(),
  from: z.array(z.looseObject({ name: z.string().nullish(), email: z.string().nullish() })).nullish(),
  subject: z.string().nullish(),
  receivedAt: z.string().nullish(),
  mailboxIds: z.record(z.string(), z.boolean()).nullish(),
});
const getSchema = z.looseObject({ state: z.string(), list: z.array(emailSchema) });
const mailboxGetSchema = z.looseObject({
  list: z.array(z.looseObject({ id: z.string(), role: z.string().nullish() })),
});
const querySchema = z.looseObject({ ids: z.array(z.string()), total: z.number().optional() });

const emailProperties = ['subject', 'receivedAt', 'mailboxIds', ...senderFactProperties, ...automaticHeaderProperties];
// RFC 8620 §5.2 lets the server cap changes per call; a bound on rounds keeps a huge backlog finite.
const maxChangeRounds = 20;
const maxItems = 50;
// The first run's look-back: a daily job sees the day's mail.
const windowMs = 24 * 3600_000;

/** New inbox mail since `sinceState` by JMAP state (RFC 8620 §5.2), or of the last 24 h on a first run. */
export async function fetchNewMail(options: FetchNewMailOptions): Promise<NewMail> {
  if (options.sinceState === undefined) return fetchRecent(options, 'first-run');
  const { jmap, accountId } = options;
  let sinceState = options.sinceState;
  const created: string[] = [];
  for (let round = 0; round < maxChangeRounds; round += 1) {
    const responses = await jmap.request([['Email/changes', { accountId, sinceState, maxChanges: 500 }, 'c']]);
    const first = responses[0];
    if (first && first[0] === 'error' && first[1].type === 'cannotCalculateChanges') {
      // The server forgot that old state (RFC 8620 §5.2): fall back to the time window once.
      return fetchRecent(options, 'resync');
    }
    const changes = pick(responses, 'Email/changes', 'c', changesResponseSchema);
    created.push(...changes.created);
    sinceState = changes.newState;
    if (!changes.hasMoreChanges) break;
  }
  if (created.length === 0) return { state: sinceState, items: [], total: 0, mode: 'changes' };
  const responses = await jmap.request([
    ['Mailbox/get', { accountId, ids: null, properties: ['role'] }, 'm'],
    ['Email/get', { accountId, ids: created, properties: emailProperties }, 'g'],
  ]);
  const inboxIds = inboxMailboxIds(pick(responses, 'Mailbox/get', 'm', mailboxGetSchema));
  const emails = pick(responses, 'Email/get', 'g', getSchema).list.filter((email) =>
    Object.entries(email.mailboxIds ?? {}).some(([id, on]) => on && inboxIds.has(id)),
  );
  const items = emails.map(toItem).sort(newestFirst);
  return { state: sinceState, items: items.slice(0, maxItems), total: items.length, mode: 'changes' };
}

async function fetchRecent(options: FetchNewMailOptions, mode: 'first-run' | 'resync'): Promise<NewMail> {
  const { jmap, accountId } = options;
  // The state is read before the query: mail landing in between is reported again rather than missed.
  const head = await jmap.request([
    ['Email/get', { accountId, ids: [] }, 's'],
    ['Mailbox/get', { accountId, ids: null, properties: ['role'] }, 'm'],
  ]);
  const state = pick(head, 'Email/get', 's', getSchema).state;
  const inboxId = [...inboxMailboxIds(pick(head, 'Mailbox/get', 'm', mailboxGetSchema))][0];
  if (inboxId === undefined)
    throw new MailboxError({
      code: 'bad_response',
      message: 'The JMAP account has no mailbox with role "inbox".',
      hint: 'Check the account in the dashboard; the wake job needs an inbox to read.',
    });
  const after = new Date(options.now.getTime() - windowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const responses = await jmap.request([
    [
      'Email/query',
      {
        accountId,
        filter: { inMailbox: inboxId, after },
        sort: [{ property: 'receivedAt', isAscending: false }],
        limit: maxItems,
        calculateTotal: true,
      },
      'q',
    ],
    [
      'Email/get',
      { accountId, '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: emailProperties },
      'g',
    ],
  ]);
  const query = pick(responses, 'Email/query', 'q', querySchema);
  const items = pick(responses, 'Email/get', 'g', getSchema).list.map(toItem).sort(newestFirst);
  return { state, items, total: query.total ?? items.length, mode };
}

function pick<T>(responses: JmapCall[], name: string, callId: string, schema: z.ZodType<T>): T {
  const found = responses.find((r) => r[2] === callId);
  if (found && found[0] === 'error')
    throw new MailboxError({
      code: 'jmap_method_error',
      message: `${name} failed on the server: ${String(found[1].type ?? 'unknown error')}.`,
      hint: 'The wake kept its previous state and will retry next time; check wake.log if this repeats.',
      details: { method: name, error: found[1] },
    });
  const parsed = found && found[0] === name ? schema.safeParse(found[1]) : undefined;
  if (!parsed?.success)
    throw new MailboxError({
      code: 'bad_response',
      message: `The JMAP server sent no valid ${name} response.`,
      hint: 'The wake kept its previous state and will retry next time.',
      ...(parsed ? { cause: parsed.error } : {}),
    });
  return parsed.data;
}

function inboxMailboxIds(mailboxes: z.infer<typeof mailboxGetSchema>): Set<string> {
  return new Set(mailboxes.list.filter((m) => m.role === 'inbox').map((m) => m.id));
}

function toItem(email: z.infer<typeof emailSchema>): NewMailItem {
  // Every author is named (a second From is how a blocked sender hid), each bounded as listings bound them.
  const authors = email.from ?? [];
  const named = authors.slice(0, shownLimits.listingAddresses).map((a) => {
    const address = clip(a.email ?? '', shownLimits.addressChars);
    return a.name ? `${shownName(a.name)} <${address}>` : address;
  });
  const from = `${named.join(', ')}${authors.length > named.length ? `, and ${authors.length - named.length} more` : ''}`;
  const automatic = automaticReason(email);
  const senderFacts = Object.fromEntries(
    senderFactProperties.filter((key) => key in email).map((key) => [key, email[key]]),
  );
  return {
    id: email.id,
    from,
    subject: clip(email.subject ?? '', shownLimits.listingSubjectChars),
    receivedAt: email.receivedAt ?? '',
    ...(automatic ? { automatic } : {}),
    senderFacts,
  };
}

function newestFirst(a: NewMailItem, b: NewMailItem): number {
  return b.receivedAt.localeCompare(a.receivedAt);
}
