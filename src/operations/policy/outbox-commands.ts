import * as z from 'zod';
import type { AuditEntry } from '../../policy/records/audit-log.js';
import type { Account } from '../../auth/account-registry.js';
import type { HeldMail } from '../../policy/records/outbox-store.js';
import { inboxInput } from '../jmap-request.js';
import { defineLazyOperation, gateContext, readsLocal, type OperationContext } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';

/**
 * `outbox list|approve|discard|log`: the operator's side of held mail and the audit trail. The outbox
 * is the local record of what was held and for whom (never Drafts, which the agent can write).
 */

const credentialsDir = z
  .string()
  .optional()
  .describe('The inbox (its credentials directory); default: the default inbox.');
const idInput = z
  .string()
  .regex(/^h-[0-9a-f]{8}$/, 'an outbox id looks like h-1a2b3c4d')
  .describe("The held mail's id, from outbox list.");

/** On a connected account, --inbox picks the inbox (default: its default inbox). */
const accountOf = (ctx: OperationContext, input: { credentials_dir?: string; inbox?: string }): Account =>
  ctx.accounts.open(input.credentials_dir, { inbox: input.inbox });

function heldLine(mail: HeldMail): string {
  return `${mail.id}  ${mail.status.padEnd(9)} ${mail.createdAt}  to ${mail.rcptTo.join(', ')}  "${mail.subject}"  (${mail.reason})`;
}

const outboxListOperation = defineLazyOperation({
  name: 'outbox_list',
  title: 'List held mail',
  description:
    "List the mail the operator's rules held for a person's yes, with each one's id, state, recipients and subject.",
  schemas: () => ({
    input: z.object({ credentials_dir: credentialsDir, inbox: inboxInput }),
    output: z.looseObject({ held: z.array(z.looseObject({ id: z.string(), status: z.string() })) }),
  }),
  annotations: readsLocal,
  doors: ['cli'],
  cli: { path: ['outbox', 'list'] },
  present: (result) => {
    const held = (result as { held: HeldMail[] }).held;
    return { text: held.length === 0 ? 'No held mail.' : held.map(heldLine).join('\n') };
  },
  async run(input, ctx) {
    const { heldMailDir, listOutbox } = await loadHandlers();
    return { held: await listOutbox(await heldMailDir(accountOf(ctx, input))) };
  },
});

const outboxApproveOperation = defineLazyOperation({
  name: 'outbox_approve',
  title: 'Approve held mail',
  description:
    'Send one held mail, exactly as held and to exactly the recipients judged, once. Needs the operator at a terminal; block-lists, caps and the secret scan are checked again.',
  schemas: () => ({
    input: z.object({ id: idInput, credentials_dir: credentialsDir, inbox: inboxInput }),
    output: z.looseObject({ id: z.string(), status: z.string(), summary: z.string() }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  doors: ['cli'],
  cli: { path: ['outbox', 'approve'], positional: 'id' },
  present: (result) => ({ lead: [result.summary] }),
  async run(input, ctx) {
    const account = accountOf(ctx, input);
    const { approveHeldMail, findHeld, askOperator } = await loadHandlers();
    const record = await findHeld(account, input.id);
    if (record.status === 'held')
      await askOperator(ctx.terminal, `outbox approve ${record.id}`, [
        `Send this held mail (${record.reason})?`,
        `  To: ${record.rcptTo.join(', ')}`,
        `  Subject: ${record.subject}`,
        `  Draft: ${record.emailId}, held ${record.createdAt}`,
      ]);
    const sent = await approveHeldMail(account, input.id, gateContext(ctx));
    return { ...sent, summary: `Sent held mail ${sent.id} ("${sent.subject}") to ${sent.rcptTo.join(', ')}.` };
  },
});

const outboxDiscardOperation = defineLazyOperation({
  name: 'outbox_discard',
  title: 'Discard held mail',
  description: 'Discard one held mail: it will never be sent, and its draft is deleted.',
  schemas: () => ({
    input: z.object({ id: idInput, credentials_dir: credentialsDir, inbox: inboxInput }),
    output: z.looseObject({ id: z.string(), status: z.string(), summary: z.string() }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  doors: ['cli'],
  cli: { path: ['outbox', 'discard'], positional: 'id' },
  present: (result) => ({ lead: [result.summary] }),
  async run(input, ctx) {
    const { discardHeldMail } = await loadHandlers();
    const { record, draftRemoved } = await discardHeldMail(accountOf(ctx, input), input.id, gateContext(ctx));
    return {
      ...record,
      summary: `Discarded held mail ${record.id} ("${record.subject}")${draftRemoved ? ' and deleted its draft' : `; its draft ${record.emailId} could not be deleted now`}.`,
    };
  },
});

function auditLine(entry: AuditEntry): string {
  const ids = entry.ids
    ? ` ${Object.entries(entry.ids)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`
    : '';
  return `${entry.at}  ${entry.door.padEnd(8)} ${entry.verdict.padEnd(9)} to ${entry.recipients.join(', ') || '-'}${entry.subject !== undefined ? `  "${entry.subject}"` : ''}${entry.rule ? `  [${entry.rule}]` : ''}${ids}${entry.note ? `  ${entry.note}` : ''}`;
}

const outboxLogOperation = defineLazyOperation({
  name: 'outbox_log',
  title: 'Show the send audit log',
  description:
    'Print the audit log of every attempt to send: sent, refused (with the rule), held, approved, discarded, declined.',
  schemas: () => ({
    input: z.object({ credentials_dir: credentialsDir, inbox: inboxInput }),
    output: z.looseObject({ entries: z.array(z.looseObject({ at: z.string(), verdict: z.string() })) }),
  }),
  annotations: readsLocal,
  doors: ['cli'],
  cli: { path: ['outbox', 'log'] },
  present: (result) => {
    const entries = (result as { entries: AuditEntry[] }).entries;
    return { text: entries.length === 0 ? 'The audit log is empty.' : entries.map(auditLine).join('\n') };
  },
  async run(input, ctx) {
    const { heldMailDir, readAudit } = await loadHandlers();
    return { entries: await readAudit(await heldMailDir(accountOf(ctx, input))) };
  },
});

/** The outbox commands of the operations table, in help order. */
export const outboxOperations = [
  outboxListOperation,
  outboxApproveOperation,
  outboxDiscardOperation,
  outboxLogOperation,
];
