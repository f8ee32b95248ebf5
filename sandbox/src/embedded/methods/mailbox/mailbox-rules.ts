import { accountLimits } from '../../protocol/jmap-limits.js';
import { MethodError } from '../../protocol/method-error.js';
import type { InboxAccount } from '../../store/inbox-account.js';
import type { MailboxRecord } from '../../store/records.js';

/**
 * Roles a mailbox may take: the IANA "IMAP Mailbox Name Attributes" that name a purpose, in lower
 * case (RFC 8621 §2, RFC 6154, RFC 8457, RFC 9051 §7.3.1), plus "inbox" (RFC 8621 §10.5).
 */
export const mailboxRoles: ReadonlySet<string> = new Set([
  'inbox',
  'all',
  'archive',
  'drafts',
  'flagged',
  'important',
  'junk',
  'sent',
  'subscribed',
  'trash',
  'snoozed',
  'scheduled',
  'memos',
]);

/** Fails a mailbox create or update on one property. */
export function invalidMailbox(property: string, why: string): MethodError {
  return new MethodError('invalidProperties', `${property}: ${why}`, { properties: [property] });
}

/**
 * Checks a mailbox name (RFC 8621 §2): a Net-Unicode string (RFC 5198: NFC, no control
 * characters) of 1 to maxSizeMailboxName octets. "/" is refused too, as the RFC lets a server do:
 * it is the hierarchy separator of the live service's store (Cyrus with unixhierarchysep).
 */
export function checkMailboxName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0)
    throw invalidMailbox('name', 'a mailbox needs a name of at least one character.');
  if (Buffer.byteLength(name) > accountLimits.maxSizeMailboxName)
    throw invalidMailbox(
      'name',
      `the name exceeds maxSizeMailboxName (${accountLimits.maxSizeMailboxName} octets in UTF-8).`,
    );
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw invalidMailbox('name', 'the name contains control characters.');
  if (name.includes('/'))
    throw invalidMailbox(
      'name',
      'the name contains "/", the hierarchy separator; nest mailboxes with parentId instead.',
    );
  if (name.normalize('NFC') !== name)
    throw invalidMailbox('name', 'the name is not in Unicode NFC (RFC 5198); normalize it first.');
  return name;
}

/** Checks that no sibling under `parentId` already has `name` (RFC 8621 §2), the mailbox itself aside. */
export function checkSiblingName(
  account: InboxAccount,
  name: string,
  parentId: string | null,
  self?: MailboxRecord,
): void {
  if (account.mailboxes.some((other) => other !== self && other.parentId === parentId && other.name === name)) {
    throw invalidMailbox(
      'name',
      `a mailbox named "${name}" already exists ${parentId ? 'under that parent' : 'at the top level'}; choose another name or parent.`,
    );
  }
}

/** Checks a role: a registered one (or null), held by no other mailbox (RFC 8621 §2), and the Inbox keeps its own. */
export function checkRole(account: InboxAccount, role: unknown, self?: MailboxRecord): string | null {
  if (self?.role === 'inbox' && role !== 'inbox')
    throw new MethodError('forbidden', 'The Inbox keeps the inbox role; new mail is delivered there.');
  if (role === null) return null;
  if (typeof role !== 'string' || !mailboxRoles.has(role)) {
    throw invalidMailbox('role', `use null or one of ${[...mailboxRoles].join(', ')} (lower case, RFC 8621 §2).`);
  }
  const holder = account.mailboxes.find((other) => other !== self && other.role === role);
  if (holder)
    throw invalidMailbox(
      'role',
      `the mailbox "${holder.name}" already has the role ${role}; no two mailboxes may share one (RFC 8621 §2).`,
    );
  return role;
}

/** The depth of a mailbox: 1 at the top level. */
export function depthOf(account: InboxAccount, mailbox: MailboxRecord): number {
  let depth = 1;
  for (let parent = mailbox.parentId; parent !== null; depth += 1) parent = account.mailbox(parent)?.parentId ?? null;
  return depth;
}

/** All mailboxes below one, at any depth. */
export function descendantsOf(account: InboxAccount, id: string): MailboxRecord[] {
  const found: MailboxRecord[] = [];
  const pending = [id];
  while (pending.length) {
    const parent = pending.pop() as string;
    for (const child of account.mailboxes.filter((mailbox) => mailbox.parentId === parent)) {
      found.push(child);
      pending.push(child.id);
    }
  }
  return found;
}

/**
 * Checks a parentId for a mailbox (new, or `self` being moved): the parent exists, is not the
 * mailbox or below it (no loops, RFC 8621 §2), and the subtree stays within maxMailboxDepth.
 */
export function checkParent(account: InboxAccount, parentId: string | null, self?: MailboxRecord): string | null {
  if (parentId === null) return null;
  const parent = account.mailbox(parentId);
  if (!parent) throw invalidMailbox('parentId', `mailbox ${parentId} does not exist.`);
  if (self && (parent === self || descendantsOf(account, self.id).includes(parent))) {
    throw invalidMailbox('parentId', 'a mailbox cannot be moved into itself or below itself.');
  }
  const subtreeHeight = self
    ? Math.max(0, ...descendantsOf(account, self.id).map((child) => depthOf(account, child) - depthOf(account, self)))
    : 0;
  if (depthOf(account, parent) + 1 + subtreeHeight > accountLimits.maxMailboxDepth) {
    throw invalidMailbox(
      'parentId',
      `the mailbox would be deeper than maxMailboxDepth (${accountLimits.maxMailboxDepth}).`,
    );
  }
  return parentId;
}

/** An unsigned integer sort order (RFC 8621 §2). */
export function checkSortOrder(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > 2 ** 31 - 1)
    throw invalidMailbox('sortOrder', 'use a whole number from 0 to 2147483647.');
  return value;
}
