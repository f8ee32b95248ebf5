import { jmapCapabilities } from '../../../wire-constants.js';
import type { InboxAccount } from '../../store/inbox-account.js';
import type { MailboxRecord } from '../../store/records.js';
import { jmapLimits } from '../../protocol/jmap-limits.js';
import { changesMethod } from '../changes-method.js';
import {
  checkObjectLimit,
  checkProperties,
  getArgs,
  parseArgs,
  pickProperties,
  resolveCreationId,
  type MethodDefinition,
} from '../method-context.js';

/** Every Mailbox property (RFC 8621 §2). */
export const mailboxProperties = [
  'id',
  'name',
  'parentId',
  'role',
  'sortOrder',
  'totalEmails',
  'unreadEmails',
  'totalThreads',
  'unreadThreads',
  'myRights',
  'isSubscribed',
];

/** The counts of one mailbox (RFC 8621 §2). */
export interface MailboxCounts {
  totalEmails: number;
  unreadEmails: number;
  totalThreads: number;
  unreadThreads: number;
}

/** Counts of every mailbox, in one pass over the mail. An unread thread has an unread message in the mailbox (RFC 8621 §2). */
export function mailboxCounts(account: InboxAccount): Map<string, MailboxCounts> {
  const tallies = new Map<
    string,
    { emails: number; unread: number; threads: Set<string>; unreadThreads: Set<string> }
  >();
  for (const email of account.emails.values()) {
    const isUnread = !email.keywords['$seen'];
    for (const mailboxId of Object.keys(email.mailboxIds)) {
      let tally = tallies.get(mailboxId);
      if (!tally)
        tallies.set(mailboxId, (tally = { emails: 0, unread: 0, threads: new Set(), unreadThreads: new Set() }));
      tally.emails += 1;
      tally.threads.add(email.threadId);
      if (isUnread) {
        tally.unread += 1;
        tally.unreadThreads.add(email.threadId);
      }
    }
  }
  return new Map(
    account.mailboxes.map((mailbox) => {
      const tally = tallies.get(mailbox.id);
      return [
        mailbox.id,
        {
          totalEmails: tally?.emails ?? 0,
          unreadEmails: tally?.unread ?? 0,
          totalThreads: tally?.threads.size ?? 0,
          unreadThreads: tally?.unreadThreads.size ?? 0,
        },
      ];
    }),
  );
}

/** What the user may do with a mailbox (RFC 8621 §2.4): everything, except renaming, moving or deleting the Inbox. */
export function rightsOf(mailbox: MailboxRecord): Record<string, boolean> {
  const isInbox = mailbox.role === 'inbox';
  return {
    mayReadItems: true,
    mayAddItems: true,
    mayRemoveItems: true,
    maySetSeen: true,
    maySetKeywords: true,
    mayCreateChild: true,
    mayRename: !isInbox,
    mayDelete: !isInbox,
    maySubmit: true,
  };
}

/** The Mailbox object with its live counts (RFC 8621 §2). */
export function mailboxObject(mailbox: MailboxRecord, counts: MailboxCounts | undefined): Record<string, unknown> {
  return {
    id: mailbox.id,
    name: mailbox.name,
    parentId: mailbox.parentId,
    role: mailbox.role,
    sortOrder: mailbox.sortOrder,
    ...(counts ?? { totalEmails: 0, unreadEmails: 0, totalThreads: 0, unreadThreads: 0 }),
    myRights: rightsOf(mailbox),
    isSubscribed: mailbox.isSubscribed,
  };
}

/** Mailbox/get and Mailbox/changes (RFC 8621 §2.1, §2.2). */
export const mailboxMethods: Record<string, MethodDefinition> = {
  'Mailbox/get': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, mailboxProperties);
      if (input.ids) checkObjectLimit(input.ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const wanted = input.ids ?? ctx.account.mailboxes.map((mailbox) => mailbox.id);
      const counts = mailboxCounts(ctx.account);
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const requested of wanted) {
        const mailbox = ctx.account.mailbox(resolveCreationId(requested, ctx) ?? requested);
        if (mailbox)
          list.push(
            pickProperties(mailboxObject(mailbox, counts.get(mailbox.id)), input.properties ?? mailboxProperties),
          );
        else notFound.push(requested);
      }
      return { response: { accountId: ctx.account.address, state: ctx.account.changes.Mailbox.state, list, notFound } };
    },
  },
  'Mailbox/changes': changesMethod('Mailbox'),
};
