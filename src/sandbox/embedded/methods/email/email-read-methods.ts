import { z } from 'zod';
import { jmapCapabilities } from '../../../../wire-constants.js';
import { FactsCache, checkQuery, matchesFilter, sortEmails, type Comparator, type Filter } from '../../query/email-query.js';
import { defaultEmailProperties, isKnownEmailProperty, renderEmail, storedEmailSource } from './email-view.js';
import { EventLoopYielder } from '../../query/event-loop-yielder.js';
import { accountLimits, jmapLimits, sandboxLimits, sandboxLimitsCapability } from '../../protocol/jmap-limits.js';
import { MethodError } from '../../protocol/method-error.js';
import { changesMethod } from '../changes-method.js';
import { checkObjectLimit, checkProperties, parseArgs, resolveCreationId, type MethodDefinition } from '../method-context.js';

const getArgs = z.object({
  accountId: z.string().optional(),
  ids: z.array(z.string()).nullable().optional(),
  properties: z.array(z.string()).nullable().optional(),
  bodyProperties: z.array(z.string()).optional(),
  fetchTextBodyValues: z.boolean().optional(),
  fetchHTMLBodyValues: z.boolean().optional(),
  fetchAllBodyValues: z.boolean().optional(),
  maxBodyValueBytes: z.number().int().nonnegative().optional(),
});

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
  position: z.number().int().optional(),
  anchor: z.string().nullable().optional(),
  anchorOffset: z.number().int().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  calculateTotal: z.boolean().optional(),
  collapseThreads: z.boolean().optional(),
});

/** Email/get, Email/query, Email/changes. */
export const emailReadMethods: Record<string, MethodDefinition> = {
  'Email/get': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, [], isKnownEmailProperty);
      const ids = input.ids ?? [...ctx.account.emails.keys()];
      checkObjectLimit(ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const requested of ids) {
        const record = ctx.account.emails.get(resolveCreationId(requested, ctx) ?? '');
        if (!record) {
          notFound.push(requested);
          continue;
        }
        list.push(
          await renderEmail(storedEmailSource(ctx.account, record), {
            properties: input.properties ?? defaultEmailProperties,
            bodyProperties: input.bodyProperties,
            fetchTextBodyValues: input.fetchTextBodyValues ?? false,
            fetchHTMLBodyValues: input.fetchHTMLBodyValues ?? false,
            fetchAllBodyValues: input.fetchAllBodyValues ?? false,
            maxBodyValueBytes: input.maxBodyValueBytes ?? 0,
          }),
        );
      }
      return { response: { accountId: ctx.account.address, state: ctx.account.changes.Email.state, list, notFound } };
    },
  },
  'Email/query': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(queryArgs, args);
      const leaves = checkQuery(input.filter, input.sort ?? undefined);
      if (leaves * ctx.account.emails.size > sandboxLimits.maxFilterWork) {
        throw new MethodError('unsupportedFilter', `${leaves} conditions over ${ctx.account.emails.size} emails exceed maxFilterWork (${sandboxLimits.maxFilterWork}) of ${sandboxLimitsCapability}; use fewer conditions.`);
      }
      const facts = new FactsCache(ctx.account);
      const matching = [];
      const yielder = new EventLoopYielder();
      for (const email of ctx.account.emails.values()) {
        if (!input.filter || (await matchesFilter(ctx.account, email, input.filter, facts))) matching.push(email);
        await yielder.maybeYield();
      }
      let sorted = await sortEmails(ctx.account, matching, input.sort ?? [], facts);
      if (input.collapseThreads) {
        const seen = new Set<string>();
        sorted = sorted.filter((email) => !seen.has(email.threadId) && Boolean(seen.add(email.threadId)));
      }
      const ids = sorted.map((email) => email.id);
      let position = input.position ?? 0;
      if (input.anchor != null) {
        const index = ids.indexOf(input.anchor);
        if (index < 0) throw new MethodError('anchorNotFound', `Anchor ${input.anchor} is not in the results.`);
        position = Math.max(0, index + (input.anchorOffset ?? 0));
      } else if (position < 0) {
        position = Math.max(0, ids.length + position);
      }
      const cap = accountLimits.maxEmailQueryLimit;
      const limit = input.limit == null ? cap : Math.min(input.limit, cap);
      return {
        response: {
          accountId: ctx.account.address,
          queryState: ctx.account.changes.Email.state,
          canCalculateChanges: false,
          position,
          ids: ids.slice(position, position + limit),
          ...(input.calculateTotal ? { total: ids.length } : {}),
          ...(input.limit != null && input.limit > cap ? { limit: cap } : {}),
        },
      };
    },
  },
  'Email/changes': changesMethod('Email'),
};
