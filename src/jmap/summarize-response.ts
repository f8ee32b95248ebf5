import type { JmapRequest, JmapResponse } from './jmap-types.js';

/** A method error or a notCreated/notUpdated/notDestroyed entry: inside an HTTP 200 (spec §7.3), never a success. */
export interface JmapFailure {
  callId: string;
  method: string;
  level: 'method' | 'record';
  set?: 'notCreated' | 'notUpdated' | 'notDestroyed' | 'notFound';
  /** The creation id or record id. */
  recordId?: string;
  type: string;
  description?: string;
  properties?: string[];
  fix: string;
}

const fixes: Record<string, string> = {
  forbiddenFrom: 'From must be the inbox\'s own address: set from to [{"email": "$INBOX"}].',
  forbiddenToSend: 'This inbox may not send right now; check with the operator before retrying.',
  invalidRecipients: 'A recipient address is malformed or does not exist; check To/Cc/Bcc.',
  tooManyRecipients: 'Send to fewer recipients per message.',
  noRecipients: 'Give at least one recipient in To, Cc or Bcc.',
  tooLarge: 'The message or attachment is too large for the server; send fewer or smaller attachments.',
  invalidProperties: 'Fix the listed properties (names and types per RFC 8621), then retry.',
  blobNotFound:
    'The blobId is unknown or expired (unreferenced blobs vanish after about an hour); upload the file again.',
  notFound: 'That id does not exist (any more): take a current id from list_inbox, list_new or search.',
  heldByPolicy:
    "Held back by your operator's receive rules: none of it is shown to you, and it stays in the mailbox. Your operator set these rules; ask them if you need it.",
  overQuota: 'The mailbox is full; move old mail to Trash and empty it, or ask the operator.',
  alreadyExists: 'A record like this already exists; fetch it instead of creating it.',
  mailboxHasEmail: "Move or destroy the mailbox's messages first, or pass onDestroyRemoveEmails.",
  invalidEmail: 'The message could not be built from these properties; check headers, body parts and attachments.',
  stateMismatch: 'ifInState is stale: fetch the current state and retry.',
  invalidResultReference:
    'A #reference points at a call that failed or a path that is not in its result; fix the earlier call (listed too) or the path.',
  unknownMethod:
    'The server does not implement this method, or its capability is missing from `using`; check `help jmap` for what this server offers, or the spelling.',
  invalidArguments:
    'Check argument names and types against RFC 8620/8621 (e.g. limit is a number, inMailbox a mailbox id).',
  accountNotFound: 'Use "$ACCOUNT_ID" for accountId (or omit it); run with a fresh session if it persists.',
  accountNotSupportedByMethod:
    'This account lacks the capability the method needs on this server (e.g. submission or blob).',
  accountReadOnly: 'This account is read-only; it cannot change mail.',
  forbidden: 'The server does not allow this action for this inbox.',
  serverFail: "The server failed on this call; retry later. Text searches need the server's search index.",
  serverUnavailable: 'The server is temporarily unavailable; retry in a minute.',
  serverPartialFail: 'Some changes may have been applied; fetch current state before retrying.',
  cannotCalculateChanges: 'The saved state is too old to compute changes; query again without sinceState.',
  anchorNotFound: 'The anchor id is not in the results; query again without anchor.',
  unsupportedSort: 'Sort by a supported property such as receivedAt.',
  unsupportedFilter: 'Use a simpler filter (inMailbox, from, subject, text, after, before).',
  tooManyChanges: 'Raise maxChanges or query the full list again.',
  requestTooLarge: 'Split the request: fewer ids or objects per call.',
  rateLimit: 'Too many requests: wait a while before retrying.',
};

/** One line and every failure of a response; `held`: ids the receive screen answered as notFound. */
export function summarizeResponse(
  request: JmapRequest,
  response: JmapResponse,
  options: { held?: ReadonlySet<string> } = {},
): { ok: boolean; summaryLine: string; failures: JmapFailure[] } {
  const methodOfCall = new Map<string, string>();
  for (const [method, , callId] of request.methodCalls) if (!methodOfCall.has(callId)) methodOfCall.set(callId, method);

  const failures: JmapFailure[] = [];
  const done: string[] = [];
  for (const [name, args, callId] of response.methodResponses) {
    const method = name === 'error' ? (methodOfCall.get(callId) ?? 'unknown method') : name;
    if (name === 'error') {
      const type = typeof args.type === 'string' ? args.type : 'unknownError';
      failures.push({ callId, method, level: 'method', type, ...describe(args), fix: fixFor(type) });
      continue;
    }
    done.push(`${method}${countOf(name, args)}`);
    // A read of an id that does not exist is an answer, not a success (RFC 8620 §5.1 notFound).
    if (name.endsWith('/get') && Array.isArray(args.notFound))
      for (const recordId of args.notFound) {
        if (typeof recordId !== 'string') continue;
        const type = options.held?.has(recordId) ? 'heldByPolicy' : 'notFound';
        failures.push({ callId, method, level: 'record', set: 'notFound', recordId, type, fix: fixFor(type) });
      }
    for (const set of ['notCreated', 'notUpdated', 'notDestroyed'] as const) {
      const entries = args[set];
      if (!entries || typeof entries !== 'object') continue;
      for (const [recordId, error] of Object.entries(entries as Record<string, unknown>)) {
        const e = (error ?? {}) as Record<string, unknown>;
        const type = typeof e.type === 'string' ? e.type : 'unknownError';
        failures.push({ callId, method, level: 'record', set, recordId, type, ...describe(e), fix: fixFor(type) });
      }
    }
  }

  const ok = failures.length === 0;
  const summaryLine = ok
    ? `OK: ${done.length} ${done.length === 1 ? 'response' : 'responses'} (${done.join(', ')}).`
    : `FAILED: ${failures.length} ${failures.length === 1 ? 'failure' : 'failures'}: ${failures.map(lineOf).join('; ')}`;
  return { ok, summaryLine, failures };
}

export function lineOf(f: JmapFailure): string {
  const where = f.level === 'record' ? `${f.method} ${f.set} "${f.recordId}"` : f.method;
  const said = f.description ? ` ("${f.description}")` : '';
  const props = f.properties?.length ? ` [${f.properties.join(', ')}]` : '';
  return `call ${f.callId} ${where}: ${f.type}${props}${said} — ${f.fix}`;
}

function fixFor(type: string): string {
  return fixes[type] ?? 'See the server description; help topic "jmap" lists the common errors.';
}

function describe(args: Record<string, unknown>): { description?: string; properties?: string[] } {
  const out: { description?: string; properties?: string[] } = {};
  if (typeof args.description === 'string') out.description = args.description;
  if (Array.isArray(args.properties))
    out.properties = args.properties.filter((p): p is string => typeof p === 'string');
  return out;
}

function countOf(name: string, args: Record<string, unknown>): string {
  if (name.endsWith('/get') && Array.isArray(args.list)) return ` ${args.list.length}`;
  if (name.endsWith('/query') && Array.isArray(args.ids)) return ` ${args.ids.length}`;
  if (name.endsWith('/set')) {
    const parts = ['created', 'updated', 'destroyed'].flatMap((k) => {
      const count = args[k] && typeof args[k] === 'object' ? Object.keys(args[k]).length : 0;
      return count !== 0 ? [`${count} ${k}`] : [];
    });
    return parts.length ? ` ${parts.join(' ')}` : '';
  }
  return '';
}
