import type { JmapRequest, JmapResponse, JmapSessionInfo } from '../jmap/jmap-types.js';
import type { FrontDoor } from '../render/front-door.js';

/** One JMAP batch (RFC 8620 §3.3) about to be POSTed to the session's apiUrl. */
export interface OutgoingBatch {
  kind: 'batch';
  request: JmapRequest;
}

/** Bytes about to be uploaded (RFC 8620 §6.1), and where they came from. */
export interface OutgoingUpload {
  kind: 'upload';
  bytes: Uint8Array;
  /** The media type the upload declares. */
  type: string;
  /** A local file the operator named (jmap_request's attachments): its absolute path. */
  source: { kind: 'file'; path: string };
}

/** What leaves the machine for the service and passes the check stage first. */
export type Outgoing = OutgoingBatch | OutgoingUpload;

/** Who is sending, and the lookups a check may make. */
export interface CheckContext {
  /** The inbox the request acts for: its credentials directory. */
  credentialsDir: string;
  /** The front door the call came through. */
  frontDoor: FrontDoor;
  /** A wake run of the watch job: no person or model started this call. */
  isWake: boolean;
  /** The JMAP session the request goes out under (account id, mailbox roles, identity). */
  session(): Promise<JmapSessionInfo>;
  /**
   * A read-only batch (…/get, …/query, …/changes) sent through the gate without passing the check
   * again: the check's own lookups, e.g. the draft an EmailSubmission/set would send.
   */
  read(request: JmapRequest): Promise<JmapResponse>;
}

/**
 * The check stage's signature: resolves to let `outgoing` leave, throws a MailboxError to stop it,
 * in which case nothing of it reaches the service.
 */
export type Check = (outgoing: Outgoing, context: CheckContext) => Promise<void>;
