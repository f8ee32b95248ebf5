import type { JmapRequest } from '../../../jmap/jmap-types.js';
import { isReadOnlyMethod } from '../../../gate/outgoing.js';
import { isRecord } from '../../../is-record.js';

/**
 * What in one JMAP batch can make mail leave: each submission with the mail it would send (created in
 * the batch, named in createdIds, or on the server), and the other methods that send. A send decided
 * by a result reference (`#`-key) cannot be known before the batch runs: it is unreadable, refused.
 */

export type MailSource =
  | { kind: 'create'; creationId: string; callIndex: number; create: Readonly<Record<string, unknown>> }
  | { kind: 'import'; creationId: string; callIndex: number; blobId: string }
  | { kind: 'server'; emailId: string }
  | { kind: 'unreadable'; why: string };

export interface PlannedSubmission {
  callIndex: number;
  callId: string;
  creationId: string;
  accountId: unknown;
  emailId: unknown;
  identityId?: string;
  envelope: unknown;
  source: MailSource;
}

/** A method other than EmailSubmission/set that makes mail leave, or may. */
export interface OtherSend {
  callIndex: number;
  method: 'VacationResponse/set' | 'MDN/send' | 'SieveScript/set' | 'Identity/set';
  args: Readonly<Record<string, unknown>>;
}

export interface BatchSends {
  submissions: PlannedSubmission[];
  /** Blob/upload creates of the batch (RFC 9404), for a `#id` blob reference. */
  blobCreates: Map<string, unknown>;
  others: OtherSend[];
  /** Methods the guard does not know: refused outside `open` mode. */
  unknown: string[];
  /** Anything that changes the inbox (a wake run refuses it). */
  writes: string[];
}

/** Writes that change this inbox but send nothing by themselves. */
const quietWrites = new Set(['Email/set', 'Email/import', 'Email/copy', 'Mailbox/set', 'Blob/upload', 'Blob/copy']);
// Identity/set: an identity's Bcc copies every mail sent with it, its Reply-To takes the answers.
const otherSenders = new Set(['VacationResponse/set', 'MDN/send', 'SieveScript/set', 'Identity/set']);

/** Whether a value carries a result reference anywhere in its keys (`#name`). */
export function hasResultReference(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasResultReference);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, inner]) => key.startsWith('#') || hasResultReference(inner));
}

/** The creates of a /set or /import call, or undefined when they come from a result reference. */
function createsOf(
  args: Readonly<Record<string, unknown>>,
  key: 'create' | 'emails',
): Record<string, unknown> | undefined {
  if (`#${key}` in args) return undefined;
  return isRecord(args[key]) ? args[key] : {};
}

export function findBatchSends(request: JmapRequest): BatchSends {
  const created = new Map<string, MailSource>();
  // Mail an update of this batch changes is unreadable to its submission (JMAP forbids it; a lenient server would not).
  const touched = new Set<string>();
  const out: BatchSends = { submissions: [], blobCreates: new Map(), others: [], unknown: [], writes: [] };
  request.methodCalls.forEach(([method, args, callId], callIndex) => {
    if (isReadOnlyMethod(method)) return;
    out.writes.push(method);
    if (method === 'Email/set') {
      const updates = isRecord(args.update) ? args.update : {};
      for (const [id, patch] of Object.entries(updates))
        if (!isRecord(patch) || Object.keys(patch).some((key) => !/^(keywords|mailboxIds)(\/|$)/.test(key)))
          touched.add(id);
      if ('#update' in args) touched.add('*');
    }
    if (method === 'Email/set' || method === 'Email/import' || method === 'Email/copy') {
      const creates = createsOf(args, method === 'Email/import' ? 'emails' : 'create');
      for (const [creationId, create] of Object.entries(creates ?? {}))
        created.set(creationId, sourceOfCreate(method, creationId, callIndex, create));
      return;
    }
    if (method === 'Blob/upload') {
      for (const [creationId, create] of Object.entries(createsOf(args, 'create') ?? {}))
        out.blobCreates.set(creationId, create);
    }
    if (method === 'EmailSubmission/set') {
      for (const submission of submissionsOf(args, callId, callIndex, created, request.createdIds ?? {})) {
        const id = typeof submission.emailId === 'string' ? submission.emailId : '';
        const changed =
          touched.has('*') ||
          touched.has(id) ||
          (submission.source.kind === 'server' && touched.has(submission.source.emailId));
        if (changed)
          submission.source = {
            kind: 'unreadable',
            why: `the same request changes the content of ${id} before sending it`,
          };
        out.submissions.push(submission);
      }
      return;
    }
    if (otherSenders.has(method)) out.others.push({ callIndex, method: method as OtherSend['method'], args });
    else if (!quietWrites.has(method)) out.unknown.push(method);
  });
  return out;
}

function sourceOfCreate(method: string, creationId: string, callIndex: number, create: unknown): MailSource {
  if (!isRecord(create) || hasResultReference(create))
    return { kind: 'unreadable', why: `${method} ${creationId} is built from a result reference` };
  if (method === 'Email/set') return { kind: 'create', creationId, callIndex, create };
  if (method === 'Email/import') {
    return typeof create.blobId === 'string'
      ? { kind: 'import', creationId, callIndex, blobId: create.blobId }
      : { kind: 'unreadable', why: `${method} ${creationId} names no blobId` };
  }
  // Email/copy: the copy has the source's content (only keywords, mailboxes and receivedAt may differ).
  return typeof create.id === 'string' && !create.id.startsWith('#')
    ? { kind: 'server', emailId: create.id }
    : { kind: 'unreadable', why: `${method} ${creationId} has no plain source id` };
}

function submissionsOf(
  args: Readonly<Record<string, unknown>>,
  callId: string,
  callIndex: number,
  created: ReadonlyMap<string, MailSource>,
  createdIds: Readonly<Record<string, string>>,
): PlannedSubmission[] {
  const topReference = Object.keys(args).find(
    (key) => key.startsWith('#') && key !== '#onSuccessUpdateEmail' && key !== '#onSuccessDestroyEmail',
  );
  const unreadable = (creationId: string, why: string): PlannedSubmission => ({
    callIndex,
    callId,
    creationId,
    accountId: args.accountId,
    emailId: undefined,
    envelope: undefined,
    source: { kind: 'unreadable', why },
  });
  const creates = createsOf(args, 'create');
  if (creates === undefined || topReference !== undefined)
    return [
      unreadable(
        '*',
        `EmailSubmission/set (call ${callId}) takes ${topReference ?? '#create'} from a result reference`,
      ),
    ];
  return Object.entries(creates).map(([creationId, create]) => {
    if (!isRecord(create) || hasResultReference(create))
      return unreadable(creationId, `submission ${creationId} is built from a result reference`);
    const { emailId, envelope, identityId } = create;
    // An identity created in the same request is one the guard has not seen (its From, its Bcc).
    const source: MailSource =
      typeof identityId === 'string' && identityId.startsWith('#')
        ? { kind: 'unreadable', why: `its identityId ${identityId} names an identity created in this request` }
        : sourceOfEmailId(emailId, created, createdIds);
    const base = { callIndex, callId, creationId, accountId: args.accountId, emailId, envelope };
    return { ...base, ...(typeof identityId === 'string' ? { identityId } : {}), source };
  });
}

function sourceOfEmailId(
  emailId: unknown,
  created: ReadonlyMap<string, MailSource>,
  createdIds: Readonly<Record<string, string>>,
): MailSource {
  if (typeof emailId !== 'string' || emailId === '')
    return { kind: 'unreadable', why: 'the submission names no emailId' };
  if (!emailId.startsWith('#')) return { kind: 'server', emailId };
  const creationId = emailId.slice(1);
  const inBatch = created.get(creationId);
  if (inBatch) return inBatch;
  const earlier = createdIds[creationId];
  return earlier
    ? { kind: 'server', emailId: earlier }
    : { kind: 'unreadable', why: `${emailId} is created nowhere before the submission` };
}
