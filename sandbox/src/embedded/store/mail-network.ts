import type { BackendContext, OutboxEntry } from '../../mail-backend.js';
import type { InboxAccount } from './inbox-account.js';

/** The sandbox's mail network as delivery and the sending methods see it. */
export interface MailNetwork {
  domain: string;
  /** A sandbox inbox by address (case-insensitive), if createInbox made it. */
  account(address: string): InboxAccount | undefined;
  /** Records a message that left the sandbox. */
  recordOutbox(entry: OutboxEntry): void;
  /** The clock of receivedAt, vacation windows and reply periods; tests move it. */
  now(): Date;
  /** Signs what an inbox sends and stamps the copies for other inboxes with the verdict. */
  ownMail: BackendContext['ownMail'];
}

/** A UTCDate of RFC 8620 §1.4 in whole seconds, as stored mail carries it. */
export function utcDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
