import type { Config } from '../config.js';
import type { JmapRequest, JmapResponse, JmapSessionInfo } from '../jmap/jmap-types.js';
import type { FrontDoor } from '../render/front-door.js';
import type { Deadline } from './deadline.js';

/** Whether a method only reads: one list for the check stage, the guard and a check's lookups, so they cannot disagree. */
export function isReadOnlyMethod(method: string): boolean {
  return /\/(get|query|changes|queryChanges|parse|validate|lookup)$/.test(method) || method === 'Core/echo';
}

export interface OutgoingBatch {
  kind: 'batch';
  request: JmapRequest;
}

export interface OutgoingUpload {
  kind: 'upload';
  bytes: Uint8Array;
  type: string;
  /** A local file the operator named (jmap_request's attachments): its absolute path. */
  source: { kind: 'file'; path: string };
}

export type Outgoing = OutgoingBatch | OutgoingUpload;

/** A yes-or-no question for the person: the operations' ConfirmRequest with no fields, so the door's `confirm` fits. */
export interface GuardQuestion {
  message: string;
  fields: Readonly<Record<string, never>>;
}

/** The person's answer (the operations' ConfirmAnswer): only `accept` is a yes. */
export type GuardAnswer =
  { action: 'accept'; content?: unknown } | { action: 'decline' } | { action: 'cancel' } | { action: 'unavailable' };

/** What the operator's guard needs from the caller beyond the gate itself; every field is optional. */
export interface GuardOptions {
  /** Asks the person in the host (MCP elicitation); absent: nobody can be asked, so mail is held. */
  confirm?: (ask: GuardQuestion) => Promise<GuardAnswer>;
  /** `outbox approve`: the operator approved exactly this held mail at a terminal. */
  approved?: { outboxId: string; emailId: string; rcptTo: readonly string[] };
  /** Tests only: the machine layer's file (production reads the fixed path). */
  machinePolicyPath?: string;
  /** Tests only: the clock of the send caps. */
  now?: () => number;
}

/** What a batch's check asks the gate to do beyond letting it leave. */
export interface CheckOutcome {
  /** Send this batch instead (mail held for the operator: its submission left out). */
  request?: JmapRequest;
  /** Called once the service answered or failed: may record it and hand back the response the caller sees (throwing undoes nothing). */
  settle?: (answer: SettleAnswer) => Promise<JmapResponse | void>;
}

export type SettleAnswer =
  { kind: 'batch'; response: JmapResponse } | { kind: 'upload'; blobId: string } | { kind: 'failed'; error: unknown };

/** Who is sending, and the lookups a check may make. */
export interface CheckContext {
  credentialsDir: string;
  frontDoor: FrontDoor;
  /** A wake run of the watch job: no person or model started this call. */
  isWake: boolean;
  /** The call's one deadline: a person's answer is awaited only within its budget. */
  deadline: Deadline;
  guard: GuardOptions;
  config(): Promise<Config>;
  /** The inbox's address (as stored with its credentials) and the folder of its rules and records. */
  inbox(): Promise<{ inbox: string; stateDir: string }>;
  session(): Promise<JmapSessionInfo>;
  /** A check's own read-only lookup (the draft an EmailSubmission/set would send), past the check. */
  read(request: JmapRequest): Promise<JmapResponse>;
  /** A check's own lookup of a blob's bytes, up to `maxBytes` (more is an error). */
  download(blobId: string, maxBytes: number): Promise<Uint8Array>;
  /** Tells the caller something it must show with the result (mail held for the operator). */
  notify(notice: GuardNotice): void;
}

/** A mail the guard held for the operator instead of sending it. */
export interface GuardNotice {
  kind: 'held';
  outboxId: string;
  emailId: string;
  recipients: string[];
  subject: string;
  /** The rule that asks for a person's yes, e.g. `user: send.mode=confirm`. */
  rule: string;
  /** Why nobody said yes: nobody could be asked, or no answer came within the call's time. */
  why: 'nobody to ask' | 'no answer in time';
}

/** The check stage: resolves to let `outgoing` leave (possibly rewritten), throws a MailboxError to stop all of it. */
export type Check = (outgoing: Outgoing, context: CheckContext) => Promise<CheckOutcome | void>;
