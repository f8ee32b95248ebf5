import { z } from 'zod';
import { jmapCapabilities } from '../../wire-constants.js';
import type { TrackedType } from '../store/records.js';
import { parseArgs, type MethodDefinition } from './method-context.js';

/** The Mailbox properties that move when mail comes, goes or is read (RFC 8621 §2). */
export const mailboxCountProperties = ['totalEmails', 'unreadEmails', 'totalThreads', 'unreadThreads'] as const;

const changesArgs = z.object({
  accountId: z.string().optional(),
  sinceState: z.string(),
  maxChanges: z.number().int().positive().nullable().optional(),
});

/** A `Foo/changes` method over one tracked type (RFC 8620 §5.2). */
export function changesMethod(type: TrackedType, capability: string = jmapCapabilities.mail): MethodDefinition {
  return {
    capability,
    async run(args, ctx) {
      const input = parseArgs(changesArgs, args);
      const { isCountsOnly, ...result } = ctx.account.changes[type].changesSince(
        input.sinceState,
        input.maxChanges ?? undefined,
      );
      const response: Record<string, unknown> = { accountId: ctx.account.address, ...result };
      // RFC 8621 §2.2: the count properties when nothing else of the updated mailboxes changed, else null.
      if (type === 'Mailbox') response['updatedProperties'] = isCountsOnly ? [...mailboxCountProperties] : null;
      return { response };
    },
  };
}
