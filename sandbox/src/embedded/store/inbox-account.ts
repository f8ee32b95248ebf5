import { LRUCache } from 'lru-cache';
import { ChangeLog, type ChangeDetail } from './change-log.js';
import type { AccountFiles } from './account-files.js';
import type { EmailFacts } from '../mime/email-facts.js';
import { asMessageIds } from '../mime/header-forms.js';
import type { ParsedMessage } from '../mime/parse-message.js';
import { defaultMessageParser, ParsedEmail, type MessageParser } from '../mime/parsed-email.js';
import { AccountBlobs } from './account-blobs.js';
import { newId } from './new-id.js';
import {
  roleMailboxes,
  trackedTypes,
  vacationOff,
  type AccountIndex,
  type EmailRecord,
  type IdentityRecord,
  type MailboxRecord,
  type SubmissionRecord,
  type TrackedType,
  type VacationRecord,
} from './records.js';

/** What a new message needs besides its bytes. */
export interface NewEmail {
  mailboxIds: Record<string, true>;
  keywords: Record<string, true>;
  receivedAt: string;
}

/** The Thread a message with these ids joins (RFC 5256 style, by Message-ID), if any stored message is related. */
export interface ThreadKeys {
  messageId: string | null;
  referenceIds: string[];
}

/** How an inbox keeps its messages' parses; only tests change these. */
export interface ParseCacheOptions {
  parser?: MessageParser;
  /** Bytes of raw message whose parses are kept; a parse holds about as much again, plus what is derived. */
  parseCacheBytes?: number;
}

/** Enough for every message of a busy sandbox inbox; beyond it the least recently read are parsed again when read. */
const defaultParseCacheBytes = 32 * 1024 * 1024;
// What a parse costs beyond its bytes (the tree's objects, the facts), so many small messages count too.
const parseOverheadBytes = 4096;

/** The identity every inbox has: its own address, with the id Cyrus requires (the address, cyrus.md). */
export function primaryIdentity(address: string): IdentityRecord {
  return { id: address, name: '', email: address, replyTo: null, bcc: null, textSignature: '', htmlSignature: '' };
}

/** One inbox: its mailboxes, messages, uploads, submissions, identities, vacation response and the states of each type. */
export class InboxAccount {
  readonly mailboxes: MailboxRecord[];
  readonly emails = new Map<string, EmailRecord>();
  readonly submissions = new Map<string, SubmissionRecord>();
  readonly identities: IdentityRecord[];
  readonly changes: Record<TrackedType, ChangeLog>;
  vacation: VacationRecord;
  /** Sender (lower-case) → when the vacation response last answered them (RFC 5230 §4.2). */
  readonly vacationReplies: Map<string, string>;
  private readonly raws = new Map<string, Buffer>();
  private readonly parser: MessageParser;
  private readonly parseCache: LRUCache<string, Promise<ParsedEmail>>;
  /** Uploads, messages and their parts as blobs (RFC 8620 §6). */
  readonly blobs: AccountBlobs;
  private isDirty = false;

  constructor(
    readonly address: string,
    private readonly files: AccountFiles | undefined,
    index?: AccountIndex,
    options: ParseCacheOptions = {},
  ) {
    this.parser = options.parser ?? defaultMessageParser;
    this.parseCache = new LRUCache({ maxSize: options.parseCacheBytes ?? defaultParseCacheBytes });
    this.mailboxes =
      index?.mailboxes ??
      roleMailboxes.map((mailbox) => ({ ...mailbox, id: newId('m'), parentId: null, isSubscribed: true }));
    this.identities = index?.identities ?? [primaryIdentity(address)];
    this.vacation = index?.vacation ?? { ...vacationOff };
    this.vacationReplies = new Map(Object.entries(index?.vacationReplies ?? {}));
    this.changes = Object.fromEntries(
      trackedTypes.map((type) => [type, new ChangeLog(index?.changes[type])]),
    ) as Record<TrackedType, ChangeLog>;
    for (const email of index?.emails ?? []) {
      this.emails.set(email.id, email);
      if (files) this.raws.set(email.id, files.readMessage(email.id));
    }
    this.blobs = new AccountBlobs(
      { has: (id) => this.emails.has(id), raw: (id) => this.raw(id), parsed: (id) => this.parsed(id) },
      files,
      () => this.markDirty(),
      index?.uploads,
    );
    for (const submission of index?.submissions ?? []) this.submissions.set(submission.id, submission);
    if (!index) this.markDirty();
  }

  /** The mailbox with a role, e.g. "inbox". */
  mailboxByRole(role: string): MailboxRecord {
    const mailbox = this.mailboxes.find((candidate) => candidate.role === role);
    if (!mailbox) throw new Error(`Inbox ${this.address} has no ${role} mailbox`);
    return mailbox;
  }

  /** A mailbox by id. */
  mailbox(id: string): MailboxRecord | undefined {
    return this.mailboxes.find((candidate) => candidate.id === id);
  }

  /** Records a created, changed or destroyed mailbox (the record itself is already in place or removed). */
  recordMailbox(mailbox: MailboxRecord, kind: 'created' | 'updated' | 'destroyed'): void {
    if (kind === 'created') this.mailboxes.push(mailbox);
    if (kind === 'destroyed') this.mailboxes.splice(this.mailboxes.indexOf(mailbox), 1);
    this.changes.Mailbox.record(mailbox.id, kind);
    this.markDirty();
  }

  /** The thread a message with these keys would join: a stored message referring to it or referred to by it. */
  relatedThread(keys: ThreadKeys): string | undefined {
    const { messageId, referenceIds } = keys;
    for (const email of this.emails.values()) {
      if (
        (email.messageId !== null && referenceIds.includes(email.messageId)) ||
        (messageId !== null && email.referenceIds.includes(messageId))
      )
        return email.threadId;
    }
    return undefined;
  }

  /** Stores a message; assigns its thread from In-Reply-To/References. */
  async addEmail(raw: Buffer, init: NewEmail): Promise<EmailRecord> {
    const parsed = await this.parser.parse(raw);
    const keys = threadKeys(parsed);
    const related = this.relatedThread(keys);
    const id = newId('M');
    const email: EmailRecord = {
      id,
      blobId: `B${id}`,
      threadId: related ?? newId('T'),
      mailboxIds: { ...init.mailboxIds },
      keywords: { ...init.keywords },
      receivedAt: init.receivedAt,
      size: raw.length,
      ...keys,
    };
    this.emails.set(id, email);
    this.raws.set(id, raw);
    this.keepParse(id, raw, Promise.resolve(new ParsedEmail(parsed, this.parser.facts)));
    this.files?.writeMessage(id, raw);
    this.changes.Email.record(id, 'created', { threadId: email.threadId });
    this.changes.Thread.record(email.threadId, related ? 'updated' : 'created');
    this.touchMailboxes(Object.keys(email.mailboxIds));
    return email;
  }

  /** Replaces mailboxIds and keywords of a message (the only mutable parts, RFC 8621 §4.6). */
  updateEmail(id: string, mailboxIds: Record<string, true>, keywords: Record<string, true>): void {
    const email = this.emails.get(id);
    if (!email) return;
    const seenChanged = Boolean(email.keywords['$seen']) !== Boolean(keywords['$seen']);
    const affected = new Set([...Object.keys(email.mailboxIds), ...Object.keys(mailboxIds)]);
    const touched = [...affected].filter(
      (mailboxId) => seenChanged || Boolean(email.mailboxIds[mailboxId]) !== Boolean(mailboxIds[mailboxId]),
    );
    email.mailboxIds = { ...mailboxIds };
    email.keywords = { ...keywords };
    this.changes.Email.record(id, 'updated', { threadId: email.threadId });
    this.touchMailboxes(touched);
  }

  /** Deletes a message for good. */
  destroyEmail(id: string): void {
    const email = this.emails.get(id);
    if (!email) return;
    this.emails.delete(id);
    this.raws.delete(id);
    this.parseCache.delete(id);
    this.files?.deleteMessage(id);
    this.changes.Email.record(id, 'destroyed', { threadId: email.threadId });
    const isThreadEmpty = ![...this.emails.values()].some((other) => other.threadId === email.threadId);
    this.changes.Thread.record(email.threadId, isThreadEmpty ? 'destroyed' : 'updated');
    this.touchMailboxes(Object.keys(email.mailboxIds));
  }

  /** A stored message's parse and what is derived from it, parsed once while it stays in the cache. */
  email(id: string): Promise<ParsedEmail> {
    const cached = this.parseCache.get(id);
    if (cached) return cached;
    const raw = this.raw(id);
    const parsing = this.parser.parse(raw).then((parsed) => new ParsedEmail(parsed, this.parser.facts));
    this.keepParse(id, raw, parsing);
    return parsing;
  }

  /** The parsed form of a stored message. */
  async parsed(id: string): Promise<ParsedMessage> {
    return (await this.email(id)).parsed;
  }

  /** The convenience properties of a stored message (RFC 8621 §4.1.3). */
  async facts(id: string): Promise<EmailFacts> {
    return (await this.email(id)).facts;
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

  /** Records a submission change. */
  recordSubmission(submission: SubmissionRecord, kind: 'created' | 'updated' | 'destroyed'): void {
    if (kind === 'destroyed') this.submissions.delete(submission.id);
    else this.submissions.set(submission.id, submission);
    this.changes.EmailSubmission.record(submission.id, kind);
    this.markDirty();
  }

  /** Records an identity change (the record is already changed in place). */
  recordIdentity(identity: IdentityRecord, kind: 'created' | 'updated' | 'destroyed'): void {
    if (kind === 'created') this.identities.push(identity);
    if (kind === 'destroyed') this.identities.splice(this.identities.indexOf(identity), 1);
    this.changes.Identity.record(identity.id, kind);
    this.markDirty();
  }

  /** Replaces the vacation response; who was already answered starts over, as a new Sieve vacation handle would (RFC 5230 §4.2). */
  setVacation(vacation: VacationRecord): void {
    this.vacation = vacation;
    this.vacationReplies.clear();
    this.changes.VacationResponse.record('singleton', 'updated');
    this.markDirty();
  }

  /** Notes that a sender got the vacation reply now. */
  noteVacationReply(sender: string, at: string): void {
    this.vacationReplies.set(sender.toLowerCase(), at);
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

  // A message larger than the whole cache is not kept (LRUCache refuses it) and is parsed on each read.
  private keepParse(id: string, raw: Buffer, parse: Promise<ParsedEmail>): void {
    this.parseCache.set(id, parse, { size: raw.length + parseOverheadBytes });
  }

  private touchMailboxes(mailboxIds: string[]): void {
    const detail: ChangeDetail = { isCountsOnly: true };
    for (const mailboxId of new Set(mailboxIds))
      if (this.mailbox(mailboxId)) this.changes.Mailbox.record(mailboxId, 'updated', detail);
    this.markDirty();
  }

  private snapshot(): AccountIndex {
    const changes = Object.fromEntries(
      trackedTypes.map((type) => [type, this.changes[type].snapshot()]),
    ) as AccountIndex['changes'];
    return {
      version: 1,
      address: this.address,
      mailboxes: this.mailboxes,
      emails: [...this.emails.values()],
      uploads: [...this.blobs.uploads.values()],
      submissions: [...this.submissions.values()],
      identities: this.identities,
      vacation: this.vacation,
      vacationReplies: Object.fromEntries(this.vacationReplies),
      changes,
    };
  }
}

/** The Message-ID of a parsed message and the ids it refers to (References, In-Reply-To). */
export function threadKeys(parsed: ParsedMessage): ThreadKeys {
  const header = (name: string): string | undefined =>
    parsed.headers.findLast((entry) => entry.name.toLowerCase() === name)?.value;
  return {
    messageId: asMessageIds(header('message-id') ?? '')?.[0] ?? null,
    referenceIds: [
      ...(asMessageIds(header('references') ?? '') ?? []),
      ...(asMessageIds(header('in-reply-to') ?? '') ?? []),
    ],
  };
}
