import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import { MethodError } from '../../protocol/method-error.js';
import { parseArgs, type MethodDefinition } from '../method-context.js';

const copyArgs = z.object({
  fromAccountId: z.string(),
  ifFromInState: z.string().nullable().optional(),
  accountId: z.string(),
  ifInState: z.string().nullable().optional(),
  create: z.record(z.string(), z.object({ id: z.string() }).loose()),
  onSuccessDestroyOriginal: z.boolean().optional(),
  destroyFromIfInState: z.string().nullable().optional(),
});

/**
 * Email/copy (RFC 8621 §4.7 on RFC 8620 §5.4). /copy moves records between two accounts, and
 * fromAccountId MUST differ from accountId (§5.4); a capability token reaches exactly one inbox, so
 * the only other account a call can name is one it cannot read: fromAccountNotFound. Copying
 * within the inbox is Email/set adding a mailbox to mailboxIds.
 */
export const emailCopyMethods: Record<string, MethodDefinition> = {
  'Email/copy': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(copyArgs, args);
      if (input.fromAccountId === input.accountId) {
        throw new MethodError(
          'invalidArguments',
          'fromAccountId must differ from accountId (RFC 8620 §5.4). To put a message in another mailbox of this inbox, use Email/set with "mailboxIds/<mailbox id>": true.',
          { arguments: ['fromAccountId', 'accountId'] },
        );
      }
      throw new MethodError(
        'fromAccountNotFound',
        `Account ${input.fromAccountId} is not accessible with this token; it reaches only ${ctx.account.address}.`,
      );
    },
  },
};
