import { z } from 'zod';

/** Mailbox roles every inbox gets, with their names (RFC 8621 §2, IANA mailbox roles). */
export const roleMailboxes = [
  { role: 'inbox', name: 'Inbox', sortOrder: 1 },
  { role: 'drafts', name: 'Drafts', sortOrder: 2 },
  { role: 'sent', name: 'Sent', sortOrder: 3 },
  { role: 'archive', name: 'Archive', sortOrder: 4 },
  { role: 'junk', name: 'Junk', sortOrder: 5 },
  { role: 'trash', name: 'Trash', sortOrder: 6 },
] as const;

// parentId and isSubscribed default for indexes written before folders could be made: every
// mailbox was then a subscribed top-level role mailbox.
const mailboxRecord = z.object({
  id: z.string(),
  name: z.string(),
  parentId: z.string().nullable().default(null),
  role: z.string().nullable(),
  sortOrder: z.number(),
  isSubscribed: z.boolean().default(true),
});
/** A mailbox of one inbox. */
export type MailboxRecord = z.infer<typeof mailboxRecord>;

const emailRecord = z.object({
  id: z.string(),
  blobId: z.string(),
  threadId: z.string(),
  mailboxIds: z.record(z.string(), z.literal(true)),
  keywords: z.record(z.string(), z.literal(true)),
  receivedAt: z.string(),
  size: z.number(),
  /** The message's own Message-ID and the ids it refers to, kept for threading without reparsing. */
  messageId: z.string().nullable(),
  referenceIds: z.array(z.string()),
});
/** The metadata of one stored message; its bytes live beside it. */
export type EmailRecord = z.infer<typeof emailRecord>;

const uploadRecord = z.object({ id: z.string(), type: z.string(), size: z.number(), createdAt: z.string() });
/** An uploaded blob's metadata (RFC 8620 §6.1). */
export type UploadRecord = z.infer<typeof uploadRecord>;

const address = z.object({ email: z.string(), parameters: z.record(z.string(), z.string().nullable()).nullable() });
const submissionRecord = z.object({
  id: z.string(),
  identityId: z.string(),
  emailId: z.string(),
  threadId: z.string(),
  envelope: z.object({ mailFrom: address, rcptTo: z.array(address) }),
  sendAt: z.string(),
  undoStatus: z.enum(['pending', 'final', 'canceled']),
  deliveryStatus: z.record(
    z.string(),
    z.object({ smtpReply: z.string(), delivered: z.string(), displayed: z.string() }),
  ),
  dsnBlobIds: z.array(z.string()),
  mdnBlobIds: z.array(z.string()),
});
/** An EmailSubmission (RFC 8621 §7). */
export type SubmissionRecord = z.infer<typeof submissionRecord>;

const emailAddress = z.object({ name: z.string().nullable(), email: z.string() });
const identityRecord = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  replyTo: z.array(emailAddress).nullable(),
  bcc: z.array(emailAddress).nullable(),
  textSignature: z.string(),
  htmlSignature: z.string(),
});
/** An Identity (RFC 8621 §6); `mayDelete` is derived (the inbox's own identity stays). */
export type IdentityRecord = z.infer<typeof identityRecord>;

const vacationRecord = z.object({
  isEnabled: z.boolean(),
  fromDate: z.string().nullable(),
  toDate: z.string().nullable(),
  subject: z.string().nullable(),
  textBody: z.string().nullable(),
  htmlBody: z.string().nullable(),
});
/** The VacationResponse singleton (RFC 8621 §8) without its constant id. */
export type VacationRecord = z.infer<typeof vacationRecord>;

/** A vacation response that is off, as a new inbox has. */
export const vacationOff: VacationRecord = {
  isEnabled: false,
  fromDate: null,
  toDate: null,
  subject: null,
  textBody: null,
  htmlBody: null,
};

/** The JMAP types whose states and changes are tracked per account. */
export const trackedTypes = ['Mailbox', 'Email', 'Thread', 'EmailSubmission', 'Identity', 'VacationResponse'] as const;
export type TrackedType = (typeof trackedTypes)[number];

const changeLogSnapshot = z.object({
  state: z.number(),
  entries: z.array(
    z.object({
      state: z.number(),
      id: z.string(),
      kind: z.enum(['created', 'updated', 'destroyed']),
      /** Set when only a Mailbox's counts moved (RFC 8621 §2.2 updatedProperties). */
      isCountsOnly: z.literal(true).optional(),
      /** The thread of an Email entry, so /queryChanges can follow thread-wide effects of destroyed mail. */
      threadId: z.string().optional(),
    }),
  ),
});
const emptyLog = { state: 0, entries: [] };

/** Schema of index.json, checked when a data directory is read back; later fields default for older indexes. */
export const accountIndex = z.object({
  version: z.literal(1),
  address: z.string(),
  mailboxes: z.array(mailboxRecord),
  emails: z.array(emailRecord),
  uploads: z.array(uploadRecord),
  submissions: z.array(submissionRecord),
  identities: z.array(identityRecord).optional(),
  vacation: vacationRecord.default(vacationOff),
  /** Senders (lower-case) → when they last got this inbox's vacation reply. */
  vacationReplies: z.record(z.string(), z.string()).default({}),
  changes: z.object({
    Mailbox: changeLogSnapshot,
    Email: changeLogSnapshot,
    Thread: changeLogSnapshot,
    EmailSubmission: changeLogSnapshot,
    Identity: changeLogSnapshot.default(emptyLog),
    VacationResponse: changeLogSnapshot.default(emptyLog),
  }),
});
/** Everything of one inbox except message and blob bytes, as written to index.json. */
export type AccountIndex = z.infer<typeof accountIndex>;
