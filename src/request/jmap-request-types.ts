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

/** What one jmap_request runs with: the gate's context (deadline, door; the check only in tests) and the wait's hooks. */
export interface JmapRequestContext extends RequestGateContext {
  /** Reports a long wait (wait_for_mail) as it goes, in the operations' ProgressUpdate shape; MCP notifies it. */
  progress?: (update: { progress: number; total?: number; message: string }) => void;
  /** Test hooks of wait_for_mail's wake source (poll intervals, ping period, clock). */
  wake?: Pick<WakeSourceOptions, 'pollDelaysMs' | 'pingSeconds' | 'now'>;
}

// Each key is described in test/unit/docs/jmap-result-keys.ts. A type alias, not an interface: the operation's loose
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
  created?: { method: string; creationId: string; id: string }[];
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

/** How a wait waited (`checks`: its looks; `clamped`: shortened to fit the budget; why it polled), and its cursor. */
export interface WaitReport {
  readonly mode: 'push' | 'polling';
  readonly seconds: number;
  readonly waitedMs: number;
  readonly checks: number;
  readonly clamped: boolean;
  readonly fallbackReason?: string;
  /** For the settle stage: list_new's cursor before (if ever saved), where the wait began and ended, mail passed over. */
  readonly cursor: {
    readonly saved: string | undefined;
    readonly startState: string;
    readonly since: string;
    readonly resumed: boolean;
    readonly others: number;
    readonly matched: number;
  };
}
