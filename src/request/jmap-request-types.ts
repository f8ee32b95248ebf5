import type { NextStep } from '../errors.js';
import type { JmapRequest, JmapResponse } from '../jmap/jmap-types.js';
import type { JmapFailure } from '../jmap/summarize-response.js';
import type { WakeSourceOptions } from '../mail/mail-wake-source.js';
import type { MailTrust } from '../present/assess-mail.js';
import type { HeldReport } from '../screen/receive-screen.js';
import type { RequestGateContext } from './check-outgoing.js';
import type { StepRun } from './run-preset-steps.js';

/** jmap_request's input as the operations table validated it (core spelling: the spec's keys). */
export interface JmapRequestInput {
  ops?: unknown;
  ops_file?: string;
  vars?: Record<string, unknown> | string;
  attachments?: string[];
  dry_run?: boolean;
  echo_request?: boolean;
  /** The operator's view of mail the receive rules hold back (CLI at a terminal only). */
  include_held?: boolean;
}

/** One progress report of a long wait (the operations' ProgressUpdate shape). */
export interface WaitProgress {
  progress: number;
  total?: number;
  message: string;
}

/** What one jmap_request runs with: the gate's context (deadline, door; the check only in tests) and the wait's hooks. */
export interface JmapRequestContext extends RequestGateContext {
  /** Reports a long wait (wait_for_mail) as it goes; MCP turns it into progress notifications. */
  progress?: (update: WaitProgress) => void;
  /** Test hooks of wait_for_mail's wake source (poll intervals, ping period, clock). */
  wake?: Pick<WakeSourceOptions, 'pollDelaysMs' | 'pingSeconds' | 'now'>;
}

/** A record a /set call created: what a multi-step summary names. */
export interface CreatedRecord {
  method: string;
  creationId: string;
  id: string;
}

// Each key is described in jmap-result-keys.ts. A type alias, not an interface: the operation's loose
// output schema needs an index-signature-compatible type.
export type JmapRequestResult = {
  ok: boolean;
  summary: string;
  dryRun: boolean;
  preset?: string;
  view?: 'listing' | 'message' | 'thread';
  request?: JmapRequest;
  response?: JmapResponse;
  failures: JmapFailure[];
  next?: (string | NextStep)[];
  steps?: StepRun[];
  created?: CreatedRecord[];
  ownMailIds?: string[];
  untrusted?: string[];
  trust?: Record<string, MailTrust>;
  held?: HeldReport;
  showHidden?: boolean;
  window?: { offset: number; maxChars: number };
  unresolved?: string[];
  notes?: string[];
  attachments?: { name: string; type: string; size: number; blobId?: string }[];
  awaitingApproval?: { outboxId: string; emailId: string; recipients: string[]; subject: string; rule: string }[];
  waited?: Omit<WaitReport, 'cursor'>;
};

/** How a wait waited, and where it leaves list_new's cursor for the settle stage to save. */
export interface WaitReport {
  readonly mode: 'push' | 'polling';
  readonly seconds: number;
  readonly waitedMs: number;
  /** How many looks (Email/changes) it took. */
  readonly checks: number;
  /** Shortened to fit the call's time budget. */
  readonly clamped: boolean;
  /** Why it polled instead of listening to the push stream. */
  readonly fallbackReason?: string;
  readonly cursor: WaitCursor;
}

/** Where a wait started and stopped, against list_new's saved cursor. */
export interface WaitCursor {
  /** list_new's cursor as saved before the wait, if list_new ever ran. */
  readonly saved: string | undefined;
  readonly startState: string;
  /** The Email state the last look reached. */
  readonly since: string;
  /** The wait went on from where an earlier filtered wait stopped. */
  readonly resumed: boolean;
  /** New mail from others the filter passed over. */
  readonly others: number;
  readonly matched: number;
}
