import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import type { Comparator, Filter } from '../../query/email-query.js';
import { queryMutability, runEmailQuery } from '../../query/run-email-query.js';
import { accountLimits } from '../../protocol/jmap-limits.js';
import { MethodError } from '../../protocol/method-error.js';
import { parseArgs, type MethodDefinition } from '../method-context.js';
import { computeQueryChanges, queryChangesArgs } from '../query-changes.js';
import { queryPage, queryPageArgs } from '../query-page.js';

// Only the outer shape here: checkQuery walks the tree iteratively with the sandbox's bounds,
// where a recursive schema would recurse once per nesting level.
const filter = z.record(z.string(), z.unknown()) as unknown as z.ZodType<Filter>;
const comparator: z.ZodType<Comparator> = z.object({
  property: z.string(),
  isAscending: z.boolean().optional(),
  keyword: z.string().optional(),
  collation: z.string().optional(),
});

const queryArgs = z.object({
  accountId: z.string().optional(),
  filter: filter.nullable().optional(),
  sort: z.array(comparator).nullable().optional(),
  ...queryPageArgs,
  collapseThreads: z.boolean().optional(),
});

const emailQueryChangesArgs = z.object({
  ...queryChangesArgs,
  filter: filter.nullable().optional(),
  sort: z.array(comparator).nullable().optional(),
  collapseThreads: z.boolean().optional(),
});

/** Email/query and Email/queryChanges (RFC 8621 §4.4, §4.5). */
export const emailQueryMethods: Record<string, MethodDefinition> = {
  'Email/query': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(queryArgs, args);
      const ids = await runEmailQuery(ctx.account, input);
      return {
        response: {
          accountId: ctx.account.address,
          queryState: ctx.account.changes.Email.state,
          canCalculateChanges: true,
          ...queryPage(ids, input, accountLimits.maxEmailQueryLimit),
        },
      };
    },
  },
  'Email/queryChanges': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(emailQueryChangesArgs, args);
      const { account } = ctx;
      const { isImmutable, isThreadWide } = queryMutability(input);
      const currentIds = await runEmailQuery(account, input);
      const response = computeQueryChanges({
        log: account.changes.Email,
        sinceQueryState: input.sinceQueryState,
        currentIds,
        isImmutable,
        maxChanges: input.maxChanges,
        upToId: input.upToId,
        calculateTotal: input.calculateTotal,
        // A thread-wide query (collapsed threads, thread keywords) moves with every change in a thread.
        alsoAffected: isThreadWide
          ? (changed) => {
              if (changed.hasUntracedDestroy)
                throw new MethodError(
                  'cannotCalculateChanges',
                  'Some changes since that state predate thread tracking; run the query again.',
                );
              const threads = new Set(changed.threadIds);
              for (const id of changed.ids.keys()) {
                const threadId = account.emails.get(id)?.threadId;
                if (threadId) threads.add(threadId);
              }
              return [...account.emails.values()]
                .filter((email) => threads.has(email.threadId))
                .map((email) => email.id);
            }
          : undefined,
      });
      return { response: { accountId: account.address, ...response } };
    },
  },
};
