import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import type { InboxAccount } from '../../store/inbox-account.js';
import type { MailboxRecord } from '../../store/records.js';
import { jmapLimits } from '../../protocol/jmap-limits.js';
import { parseArgs, type MethodDefinition } from '../method-context.js';
import { computeQueryChanges, queryChangesArgs } from '../query-changes.js';
import { queryPage, queryPageArgs } from '../query-page.js';
import { descendantsOf } from './mailbox-rules.js';

const mailboxFilter = z
  .object({
    parentId: z.string().nullable().optional(),
    name: z.string().optional(),
    role: z.string().nullable().optional(),
    hasAnyRole: z.boolean().optional(),
    isSubscribed: z.boolean().optional(),
  })
  .strict();
type MailboxFilter = z.infer<typeof mailboxFilter>;

const mailboxSort = z.array(
  z
    .object({
      property: z.enum(['name', 'sortOrder']),
      isAscending: z.boolean().optional(),
      collation: z.string().optional(),
    })
    .strict(),
);
type MailboxSort = z.infer<typeof mailboxSort>;

const shape = {
  filter: mailboxFilter.nullable().optional(),
  sort: mailboxSort.nullable().optional(),
  sortAsTree: z.boolean().optional(),
  filterAsTree: z.boolean().optional(),
};
const queryArgs = z.object({ accountId: z.string().optional(), ...queryPageArgs, ...shape });
const changesArgs = z.object({ ...queryChangesArgs, ...shape });

interface MailboxQuery {
  filter?: MailboxFilter | null | undefined;
  sort?: MailboxSort | null | undefined;
  sortAsTree?: boolean | undefined;
  filterAsTree?: boolean | undefined;
}

function matches(mailbox: MailboxRecord, filter: MailboxFilter): boolean {
  return (
    (filter.parentId === undefined || mailbox.parentId === filter.parentId) &&
    (filter.name === undefined || mailbox.name.toLowerCase().includes(filter.name.toLowerCase())) &&
    (filter.role === undefined || mailbox.role === filter.role) &&
    (filter.hasAnyRole === undefined || (mailbox.role !== null) === filter.hasAnyRole) &&
    (filter.isSubscribed === undefined || mailbox.isSubscribed === filter.isSubscribed)
  );
}

function compare(sort: MailboxSort): (a: MailboxRecord, b: MailboxRecord) => number {
  return (a, b) => {
    for (const comparator of sort) {
      const order = comparator.property === 'name' ? a.name.localeCompare(b.name) : a.sortOrder - b.sortOrder;
      if (order !== 0) return comparator.isAscending === false ? -order : order;
    }
    return 0;
  };
}

/**
 * The ids Mailbox/query returns before paging (RFC 8621 §2.3). With sortAsTree the order is a walk
 * of the whole tree with siblings sorted, so an ancestor precedes its descendants and others
 * compare by their nearest sibling ancestors; with filterAsTree a mailbox needs every ancestor
 * to match too.
 */
function runMailboxQuery(account: InboxAccount, query: MailboxQuery): string[] {
  const filter = query.filter ?? {};
  const matching = new Set(account.mailboxes.filter((mailbox) => matches(mailbox, filter)));
  if (query.filterAsTree) {
    for (const mailbox of [...matching]) {
      for (let parent = mailbox.parentId; parent !== null; parent = account.mailbox(parent)?.parentId ?? null) {
        const ancestor = account.mailbox(parent);
        if (!ancestor || !matching.has(ancestor)) {
          matching.delete(mailbox);
          break;
        }
      }
    }
  }
  const order = compare(query.sort ?? []);
  if (!query.sortAsTree)
    return account.mailboxes
      .filter((mailbox) => matching.has(mailbox))
      .sort(order)
      .map((mailbox) => mailbox.id);
  const walk = (parentId: string | null): MailboxRecord[] =>
    account.mailboxes
      .filter((mailbox) => mailbox.parentId === parentId)
      .sort(order)
      .flatMap((mailbox) => [mailbox, ...walk(mailbox.id)]);
  return walk(null)
    .filter((mailbox) => matching.has(mailbox))
    .map((mailbox) => mailbox.id);
}

/** Mailbox/query and Mailbox/queryChanges (RFC 8621 §2.3, §2.4). */
export const mailboxQueryMethods: Record<string, MethodDefinition> = {
  'Mailbox/query': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(queryArgs, args);
      return {
        response: {
          accountId: ctx.account.address,
          queryState: ctx.account.changes.Mailbox.state,
          canCalculateChanges: true,
          ...queryPage(runMailboxQuery(ctx.account, input), input, jmapLimits.maxObjectsInGet),
        },
      };
    },
  },
  'Mailbox/queryChanges': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(changesArgs, args);
      const { account } = ctx;
      const response = computeQueryChanges({
        log: account.changes.Mailbox,
        sinceQueryState: input.sinceQueryState,
        currentIds: runMailboxQuery(account, input),
        // Every Mailbox filter and sort property can change (RFC 8621 §2), and a moved or renamed
        // mailbox carries its subtree along under sortAsTree and filterAsTree.
        isImmutable: false,
        alsoAffected: (changed) =>
          [...changed.ids]
            .filter(([, change]) => !change.isCountsOnly)
            .flatMap(([id]) => descendantsOf(account, id).map((child) => child.id)),
        maxChanges: input.maxChanges,
        upToId: input.upToId,
        calculateTotal: input.calculateTotal,
      });
      return { response: { accountId: account.address, ...response } };
    },
  },
};
