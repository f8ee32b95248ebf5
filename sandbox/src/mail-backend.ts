import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OwnMailAuthenticator } from './mail-auth/mail-authority.js';

/**
 * The seam between the sandbox's auth host (which owns sign-up and tokens) and a mail store
 * that serves the JMAP host: the embedded store, or a real Cyrus IMAP behind a gateway.
 */

/** What a verified capability JWT grants: exactly one inbox. */
export interface CapabilityClaims {
  /** Full address, e.g. alice@agent-mailbox.test; also the JMAP account id. */
  address: string;
  /** Local part (the live service's `inboxId` claim). */
  inboxId: string;
}

/** A message the sandbox "sent to the outside world" (a recipient that is no sandbox inbox). */
export interface OutboxEntry {
  at: string;
  from: string;
  to: string[];
  subject: string;
  messageId?: string;
  size: number;
  /** The full RFC 5322 message, base64. */
  rawBase64: string;
}

export interface BackendContext {
  domain: string;
  /** Verifies a bearer capability JWT (signature, expiry); throws on anything invalid. */
  verifyCapability(bearer: string): Promise<CapabilityClaims>;
  /** Absolute base URL of the JMAP host, known once it listens (session URLs are built from it). */
  publicApiUrl(): string;
  /** Signs mail the inboxes send (DKIM) and stamps the copies for other inboxes with the verdict. */
  ownMail: OwnMailAuthenticator;
  dataDir?: string;
  log: (line: string) => void;
}

export interface MailBackend {
  readonly kind: 'embedded' | 'cyrus';
  /** The JMAP host's HTTP handler: session, /jmap, upload, download, /sandbox/* endpoints. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Creates the inbox and its role mailboxes (inbox, drafts, sent, trash, junk, archive). */
  createInbox(address: string): Promise<void>;
  /** Mail arriving from outside (the SMTP listener): delivered to local recipients. */
  deliverInbound(
    raw: Buffer,
    envelope: { from: string; to: string[] },
  ): Promise<{ accepted: string[]; rejected: string[] }>;
  outbox(): Promise<OutboxEntry[]>;
  close(): Promise<void>;
}
