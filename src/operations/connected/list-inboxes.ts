import * as z from 'zod';
import { credentialsKindOf } from '../../credentials/credentials-kind.js';
import { defineLazyOperation, gateContext, optionalText } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';

/** A connected account's list is the service's, kept and fetched again on `refresh`; an own directory lists its inbox. */
export const listInboxesOperation = defineLazyOperation({
  name: 'list_inboxes',
  title: 'List the inboxes you can use',
  description:
    "The inboxes this credentials directory reaches (a person's connected account may have several), with the default. Pass one as jmap_request's inbox. Changes nothing.",
  schemas: () => ({
    input: z.object({
      credentials_dir: optionalText('Omit for the default.'),
      refresh: z.boolean().optional().describe('Ask the service again instead of using the kept list.'),
    }),
    output: z.object({
      credentialsDir: z.string(),
      kind: z.enum(['own', 'connected']),
      inboxes: z.array(
        z.object({
          address: z.string(),
          inboxId: z.string(),
          accountId: z.string().optional(),
          isDefault: z.boolean(),
          status: z.string().optional(),
        }),
      ),
      default: z.string().optional(),
      summary: z.string(),
    }),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  present: (result) => {
    const lines = result.inboxes.map(
      (inbox) =>
        `- ${inbox.address}${inbox.accountId ? ` (accountId ${inbox.accountId})` : ''}${inbox.isDefault ? ', default' : ''}`,
    );
    return { text: [result.summary, ...lines].join('\n') };
  },
  async run(input, ctx) {
    const account = ctx.accounts.open(input.credentials_dir);
    const isConnected = credentialsKindOf(account.dir) === 'oauth';
    const { openServiceGate, checkOutgoing } = await loadHandlers();
    // Listing inboxes sends no batch; the check is there because no gate opens without one.
    const gate = openServiceGate(account, { ...gateContext(ctx), check: checkOutgoing });
    const listed = await gate.listInboxes(input.refresh === true);
    const inboxes = listed.map((inbox) => ({
      address: inbox.address,
      inboxId: inbox.inboxId,
      ...(inbox.serviceAccountId !== undefined ? { accountId: inbox.serviceAccountId } : {}),
      isDefault: inbox.isDefault,
      ...(inbox.status !== undefined ? { status: inbox.status } : {}),
    }));
    const chosen = inboxes.find((inbox) => inbox.isDefault);
    const summary = isConnected
      ? `${inboxes.length} inbox${inboxes.length === 1 ? '' : 'es'} of the connected account in ${account.dir}; ${chosen ? `without an inbox choice, calls use ${chosen.address}` : 'none is the default, so every call names its inbox'}.`
      : `${account.dir} holds your own inbox ${inboxes[0]?.address ?? ''}.`;
    return {
      credentialsDir: account.dir,
      kind: isConnected ? ('connected' as const) : ('own' as const),
      inboxes,
      ...(chosen ? { default: chosen.address } : {}),
      summary,
    };
  },
});
