import { z } from 'zod';
import { jmapCapabilities } from '../../../../wire-constants.js';
import type { InboxAccount } from '../../store/inbox-account.js';
import type { MailboxRecord } from '../../store/records.js';
import { changesMethod } from '../changes-method.js';
import { checkObjectLimit, checkProperties, parseArgs, pickProperties, type MethodDefinition } from '../method-context.js';
import { jmapLimits } from '../../protocol/jmap-limits.js';

const mailboxProperties = ['id', 'name', 'parentId', 'role', 'sortOrder', 'totalEmails', 'unreadEmails', 'totalThreads', 'unreadThreads', 'myRights', 'isSubscribed'];

/** The Mailbox object with its live counts (RFC 8621 §2). */
export function mailboxObject(account: InboxAccount, mailbox: MailboxRecord): Record<string, unknown> {
  const emails = [...account.emails.values()].filter((email) => email.mailboxIds[mailbox.id]);
  const unread = emails.filter((email) => !email.keywords['$seen']);
  return {
    id: mailbox.id,
    name: mailbox.name,
    parentId: null,
    role: mailbox.role,
    sortOrder: mailbox.sortOrder,
    totalEmails: emails.length,
    unreadEmails: unread.length,
    totalThreads: new Set(emails.map((email) => email.threadId)).size,
    unreadThreads: new Set(unread.map((email) => email.threadId)).size,
    myRights: {
      mayReadItems: true, mayAddItems: true, mayRemoveItems: true, maySetSeen: true, maySetKeywords: true,
      mayCreateChild: false, mayRename: false, mayDelete: false, maySubmit: true,
    },
    isSubscribed: true,
  };
}

const getArgs = z.object({
  accountId: z.string().optional(),
  ids: z.array(z.string()).nullable().optional(),
  properties: z.array(z.string()).nullable().optional(),
});

const mailboxFilter = z
  .object({
    parentId: z.string().nullable().optional(),
    name: z.string().optional(),
    role: z.string().nullable().optional(),
    hasAnyRole: z.boolean().optional(),
    isSubscribed: z.boolean().optional(),
  })
  .strict();

const queryArgs = z.object({
  accountId: z.string().optional(),
  filter: mailboxFilter.nullable().optional(),
  sort: z.array(z.object({ property: z.enum(['name', 'sortOrder']), isAscending: z.boolean().optional() }).loose()).nullable().optional(),
  position: z.number().int().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  calculateTotal: z.boolean().optional(),
  sortAsTree: z.boolean().optional(),
  filterAsTree: z.boolean().optional(),
});

/** Mailbox/get, Mailbox/query and Mailbox/changes. */
export const mailboxMethods: Record<string, MethodDefinition> = {
  'Mailbox/get': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, mailboxProperties);
      if (input.ids) checkObjectLimit(input.ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const wanted = input.ids ?? ctx.account.mailboxes.map((mailbox) => mailbox.id);
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const id of wanted) {
        const mailbox = ctx.account.mailboxes.find((candidate) => candidate.id === id);
        if (mailbox) list.push(pickProperties(mailboxObject(ctx.account, mailbox), input.properties ?? mailboxProperties));
        else notFound.push(id);
      }
      return { response: { accountId: ctx.account.address, state: ctx.account.changes.Mailbox.state, list, notFound } };
    },
  },
  'Mailbox/query': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(queryArgs, args);
      const filter = input.filter ?? {};
      let mailboxes = ctx.account.mailboxes.filter(
        (mailbox) =>
          (filter.parentId === undefined || filter.parentId === null) &&
          (filter.name === undefined || mailbox.name.toLowerCase().includes(filter.name.toLowerCase())) &&
          (filter.role === undefined || mailbox.role === filter.role) &&
          (filter.hasAnyRole === undefined || (mailbox.role !== null) === filter.hasAnyRole) &&
          (filter.isSubscribed === undefined || filter.isSubscribed),
      );
      for (const comparator of [...(input.sort ?? [])].reverse()) {
        const direction = comparator.isAscending === false ? -1 : 1;
        mailboxes = [...mailboxes].sort((a, b) =>
          direction * (comparator.property === 'name' ? a.name.localeCompare(b.name) : a.sortOrder - b.sortOrder),
        );
      }
      const total = mailboxes.length;
      let position = input.position ?? 0;
      if (position < 0) position = Math.max(0, total + position);
      const ids = mailboxes.slice(position, input.limit != null ? position + input.limit : undefined).map((mailbox) => mailbox.id);
      return {
        response: {
          accountId: ctx.account.address,
          queryState: ctx.account.changes.Mailbox.state,
          canCalculateChanges: false,
          position,
          ids,
          ...(input.calculateTotal ? { total } : {}),
        },
      };
    },
  },
  'Mailbox/changes': changesMethod('Mailbox'),
};
