import { randomBytes } from 'node:crypto';
import { ChangeLog } from './change-log.js';
import type { AccountFiles } from './account-files.js';
import { asMessageIds } from '../mime/header-forms.js';
import { findPart, parseMessage, type ParsedMessage } from '../mime/parse-message.js';
import {
  roleMailboxes,
  trackedTypes,
  type AccountIndex,
  type EmailRecord,
  type MailboxRecord,
  type SubmissionRecord,
  type TrackedType,
  type UploadRecord,
} from './records.js';

/** A fresh JMAP id (RFC 8620 §1.2: URL-safe characters only). */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(9).toString('hex')}`;
}

/** What a new message needs besides its bytes. */
export interface NewEmail {
  mailboxIds: Record<string, true>;
  keywords: Record<string, true>;
  receivedAt?: string;
}

/** One inbox: its mailboxes, messages, uploads, submissions and the states of each type. */
export class InboxAccount {
  readonly mailboxes: MailboxRecord[];
  readonly emails = new Map<string, EmailRecord>();
  readonly uploads = new Map<string, UploadRecord>();
  readonly submissions = new Map<string, SubmissionRecord>();
  readonly changes: Record<TrackedType, ChangeLog>;
  private readonly raws = new Map<string, Buffer>();
  private readonly uploadData = new Map<string, Buffer>();
  private readonly parsedCache = new Map<string, Promise<ParsedMessage>>();
  private isDirty = false;

  constructor(
    readonly address: string,
    private readonly files: AccountFiles | undefined,
    index?: AccountIndex,
  ) {
    this.mailboxes = index?.mailboxes ?? roleMailboxes.map((mailbox) => ({ ...mailbox, id: newId('m') }));
    this.changes = {
      Mailbox: new ChangeLog(index?.changes.Mailbox),
      Email: new ChangeLog(index?.changes.Email),
      Thread: new ChangeLog(index?.changes.Thread),
      EmailSubmission: new ChangeLog(index?.changes.EmailSubmission),
    };
    for (const email of index?.emails ?? []) {
      this.emails.set(email.id, email);
      if (files) this.raws.set(email.id, files.readMessage(email.id));
    }
    for (const upload of index?.uploads ?? []) {
      this.uploads.set(upload.id, upload);
      if (files) this.uploadData.set(upload.id, files.readBlob(upload.id));
    }
    for (const submission of index?.submissions ?? []) this.submissions.set(submission.id, submission);
    if (!index) this.markDirty();
  }

  /** The mailbox with a role, e.g. "inbox". */
  mailboxByRole(role: string): MailboxRecord {
    const mailbox = this.mailboxes.find((candidate) => candidate.role === role);
    if (!mailbox) throw new Error(`Inbox ${this.address} has no ${role} mailbox`);
    return mailbox;
  }

  /** Stores a message; assigns its thread from In-Reply-To/References (RFC 5256 style, by Message-ID). */
  async addEmail(raw: Buffer, init: NewEmail): Promise<EmailRecord> {
    const parsed = await parseMessage(raw);
    const header = (name: string): string | undefined => parsed.headers.findLast((entry) => entry.name.toLowerCase() === name)?.value;
    const messageId = asMessageIds(header('message-id') ?? '')?.[0] ?? null;
    const referenceIds = [...(asMessageIds(header('references') ?? '') ?? []), ...(asMessageIds(header('in-reply-to') ?? '') ?? [])];
    const relative = [...this.emails.values()].find(
      (email) => (email.messageId !== null && referenceIds.includes(email.messageId)) || (messageId !== null && email.referenceIds.includes(messageId)),
    );
    const id = newId('M');
    const email: EmailRecord = {
      id,
      blobId: `B${id}`,
      threadId: relative?.threadId ?? newId('T'),
      mailboxIds: { ...init.mailboxIds },
      keywords: { ...init.keywords },
      receivedAt: init.receivedAt ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      size: raw.length,
      messageId,
      referenceIds,
    };
    this.emails.set(id, email);
    this.raws.set(id, raw);
    this.parsedCache.set(id, Promise.resolve(parsed));
    this.files?.writeMessage(id, raw);
    this.changes.Email.record(id, 'created');
    this.changes.Thread.record(email.threadId, relative ? 'updated' : 'created');
    this.touchMailboxes(Object.keys(email.mailboxIds));
    return email;
  }

  /** Replaces mailboxIds and keywords of a message (the only mutable parts, RFC 8621 §4.6). */
  updateEmail(id: string, mailboxIds: Record<string, true>, keywords: Record<string, true>): void {
    const email = this.emails.get(id);
    if (!email) return;
    const seenChanged = Boolean(email.keywords['$seen']) !== Boolean(keywords['$seen']);
    const affected = new Set([...Object.keys(email.mailboxIds), ...Object.keys(mailboxIds)]);
    const touched = [...affected].filter((mailboxId) => seenChanged || Boolean(email.mailboxIds[mailboxId]) !== Boolean(mailboxIds[mailboxId]));
    email.mailboxIds = { ...mailboxIds };
    email.keywords = { ...keywords };
    this.changes.Email.record(id, 'updated');
    this.touchMailboxes(touched);
  }

  /** Deletes a message for good. */
  destroyEmail(id: string): void {
    const email = this.emails.get(id);
    if (!email) return;
    this.emails.delete(id);
    this.raws.delete(id);
    this.parsedCache.delete(id);
    this.files?.deleteMessage(id);
    this.changes.Email.record(id, 'destroyed');
    const isThreadEmpty = ![...this.emails.values()].some((other) => other.threadId === email.threadId);
    this.changes.Thread.record(email.threadId, isThreadEmpty ? 'destroyed' : 'updated');
    this.touchMailboxes(Object.keys(email.mailboxIds));
  }

  /** The parsed form of a stored message (cached). */
  parsed(id: string): Promise<ParsedMessage> {
    let cached = this.parsedCache.get(id);
    if (!cached) {
      cached = parseMessage(this.raw(id));
      this.parsedCache.set(id, cached);
    }
    return cached;
  }

  /** The raw bytes of a stored message. */
  raw(id: string): Buffer {
    const raw = this.raws.get(id);
    if (!raw) throw new Error(`No raw message ${id}`);
    return raw;
  }

  /** Ids of a thread's messages, oldest first (RFC 8621 §3); same-second ties keep arrival order (stable sort). */
  threadEmailIds(threadId: string): string[] {
    return [...this.emails.values()]
      .filter((email) => email.threadId === threadId)
      .sort((a, b) => a.receivedAt.localeCompare(b.receivedAt))
      .map((email) => email.id);
  }

  /** Stores an uploaded blob. */
  addUpload(data: Buffer, type: string): UploadRecord {
    const upload = { id: newId('G'), type, size: data.length, createdAt: new Date().toISOString() };
    this.uploads.set(upload.id, upload);
    this.uploadData.set(upload.id, data);
    this.files?.writeBlob(upload.id, data);
    this.markDirty();
    return upload;
  }

  /** Resolves any blob of this account: uploads, whole messages (`B<emailId>`), parts (`B<emailId>_<partId>`). */
  async resolveBlob(blobId: string): Promise<{ data: Buffer; type: string } | undefined> {
    const upload = this.uploads.get(blobId);
    if (upload) {
      const data = this.uploadData.get(blobId);
      return data ? { data, type: upload.type } : undefined;
    }
    const match = /^B(M[0-9a-f]+)(?:_([0-9-]+))?$/.exec(blobId);
    if (!match?.[1] || !this.emails.has(match[1])) return undefined;
    if (!match[2]) return { data: this.raw(match[1]), type: 'message/rfc822' };
    const part = findPart((await this.parsed(match[1])).root, match[2].replaceAll('-', '.'));
    return part ? { data: part.content, type: part.type } : undefined;
  }

  /** Records a submission change. */
  recordSubmission(submission: SubmissionRecord, kind: 'created' | 'updated' | 'destroyed'): void {
    if (kind === 'destroyed') this.submissions.delete(submission.id);
    else this.submissions.set(submission.id, submission);
    this.changes.EmailSubmission.record(submission.id, kind);
    this.markDirty();
  }

  /** Marks the index for the next flush. */
  markDirty(): void {
    this.isDirty = true;
  }

  /** Writes the index if anything changed since the last flush. */
  flush(): void {
    if (!this.isDirty || !this.files) return;
    this.files.writeIndex(this.snapshot());
    this.isDirty = false;
  }

  private touchMailboxes(mailboxIds: string[]): void {
    for (const mailboxId of new Set(mailboxIds)) this.changes.Mailbox.record(mailboxId, 'updated');
    this.markDirty();
  }

  private snapshot(): AccountIndex {
    const changes = Object.fromEntries(trackedTypes.map((type) => [type, this.changes[type].snapshot()])) as AccountIndex['changes'];
    return {
      version: 1,
      address: this.address,
      mailboxes: this.mailboxes,
      emails: [...this.emails.values()],
      uploads: [...this.uploads.values()],
      submissions: [...this.submissions.values()],
      changes,
    };
  }
}

/** Blob id of a message part: partIds use dots, ids may not (RFC 8620 §1.2). */
export function partBlobId(emailId: string, partId: string): string {
  return `B${emailId}_${partId.replaceAll('.', '-')}`;
}
