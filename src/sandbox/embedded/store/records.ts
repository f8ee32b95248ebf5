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

const mailboxRecord = z.object({ id: z.string(), name: z.string(), role: z.string().nullable(), sortOrder: z.number() });
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
  deliveryStatus: z.record(z.string(), z.object({ smtpReply: z.string(), delivered: z.string(), displayed: z.string() })),
  dsnBlobIds: z.array(z.string()),
  mdnBlobIds: z.array(z.string()),
});
/** An EmailSubmission (RFC 8621 §7). */
export type SubmissionRecord = z.infer<typeof submissionRecord>;

/** The JMAP types whose states and changes are tracked per account. */
export const trackedTypes = ['Mailbox', 'Email', 'Thread', 'EmailSubmission'] as const;
export type TrackedType = (typeof trackedTypes)[number];

const changeLogSnapshot = z.object({
  state: z.number(),
  entries: z.array(z.object({ state: z.number(), id: z.string(), kind: z.enum(['created', 'updated', 'destroyed']) })),
});

/** Schema of index.json, checked when a data directory is read back. */
export const accountIndex = z.object({
  version: z.literal(1),
  address: z.string(),
  mailboxes: z.array(mailboxRecord),
  emails: z.array(emailRecord),
  uploads: z.array(uploadRecord),
  submissions: z.array(submissionRecord),
  changes: z.object({ Mailbox: changeLogSnapshot, Email: changeLogSnapshot, Thread: changeLogSnapshot, EmailSubmission: changeLogSnapshot }),
});
/** Everything of one inbox except message and blob bytes, as written to index.json. */
export type AccountIndex = z.infer<typeof accountIndex>;
