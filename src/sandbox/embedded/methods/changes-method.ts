import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import type { TrackedType } from '../store/records.js';
import { parseArgs, type MethodDefinition } from './method-context.js';

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
      const result = ctx.account.changes[type].changesSince(input.sinceState, input.maxChanges ?? undefined);
      const response: Record<string, unknown> = { accountId: ctx.account.address, ...result };
      // Mailbox/changes also names which properties changed; ours are always the counts or nothing else.
      if (type === 'Mailbox') response['updatedProperties'] = null;
      return { response };
    },
  };
}
