import { z } from 'zod';
import { addressListInput, attachmentsInput } from '../mail/compose-input.js';
import { agentIdInput, chooseInbox } from '../mail/inbox-choice.js';
import { presetFlows, presetNames, type PresetParams } from '../mail/preset-flows.js';
import { defineHostedTool, type ToolContext, type ToolOutcome } from './hosted-tool.js';
import { HostedToolError } from './hosted-tool-error.js';
import { messageIdInput, readInbox } from './read-tools.js';
import { replyToMessage, sendEmail } from './send-tools.js';

const presetList = presetNames.map((name) => `${name}: ${presetFlows[name].description}`).join(' ');

/** Runs a preset's flow for real, through the same code as the matching tool. */
function runFlow(
  ctx: ToolContext,
  name: (typeof presetNames)[number],
  params: PresetParams & { agent_id?: string | undefined },
): Promise<ToolOutcome> {
  const agent = { agent_id: params.agent_id };
  switch (name) {
    case 'list_inbox':
      return readInbox(ctx, { ...agent, limit: params.limit ?? 25 });
    case 'send_mail':
    case 'send_mail_attachment':
      return sendEmail(ctx, {
        ...agent,
        to: params.to ?? [],
        cc: params.cc,
        bcc: params.bcc,
        subject: params.subject ?? '',
        body: params.body ?? '',
        attachments: params.attachments,
      });
    case 'reply':
    case 'reply_attachment':
      return replyToMessage(ctx, {
        ...agent,
        message_id: params.message_id ?? '',
        body: params.body ?? '',
        attachments: params.attachments,
      });
  }
}

export const runPresetTool = defineHostedTool({
  name: 'run_preset',
  title: 'Run a bundled mail flow',
  description: `Run a bundled JMAP flow by name, with its parameters as the other inputs. ${presetList} With dry_run true nothing is sent or read: the answer lists the JMAP requests the flow makes, with $PLACEHOLDERS for the ids a real run looks up. The sending flows need the mail.send scope.`,
  input: z.object({
    preset: z.enum(presetNames, { error: `preset is one of ${presetNames.join(', ')}` }).describe('Name of the flow.'),
    dry_run: z.boolean().default(false).describe('true: show the requests without making any.'),
    to: addressListInput('Recipients (send flows)').optional(),
    cc: addressListInput('Copy recipients (send flows)').optional(),
    bcc: addressListInput('Blind-copy recipients (send flows)').optional(),
    subject: z.string().max(998).optional().describe('Subject line (send flows).'),
    body: z
      .string()
      .max(1024 * 1024)
      .optional()
      .describe('Plain-text body (send and reply flows).'),
    message_id: messageIdInput.optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe('How many messages list_inbox shows, 1 to 50 (default 25).'),
    attachments: attachmentsInput,
    agent_id: agentIdInput,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(input, ctx) {
    const flow = presetFlows[input.preset];
    const missing = flow.required.filter(
      (key) => input[key] === undefined || (Array.isArray(input[key]) && input[key].length === 0),
    );
    if (missing.length > 0)
      throw new HostedToolError(
        'invalid_input',
        `The preset ${input.preset} needs ${missing.join(', ')}.`,
        `Call run_preset again with ${missing.join(', ')} set.`,
      );
    if (!input.preset.endsWith('_attachment') && (input.attachments ?? []).length > 0) {
      throw new HostedToolError(
        'invalid_input',
        `The preset ${input.preset} sends no attachments.`,
        `Use ${input.preset === 'list_inbox' ? 'send_mail_attachment' : `${input.preset}_attachment`} to send files.`,
      );
    }
    if (!input.dry_run) {
      const outcome = await runFlow(ctx, input.preset, input);
      return { ...outcome, data: { preset: input.preset, ...outcome.data } };
    }
    // Ownership is checked even when nothing is sent.
    const inbox = chooseInbox(ctx.caller, input.agent_id, ctx.deps.directory);
    const steps = flow.plan(input);
    const refusal =
      flow.sends && !ctx.caller.scopes.includes('mail.send')
        ? ['A real run would be refused: this connection has no mail.send scope (insufficient_scope).']
        : [];
    return {
      data: {
        preset: input.preset,
        dry_run: true,
        inbox: { agent_id: inbox.accountId, address: inbox.address },
        steps,
        _next: [...refusal, 'Nothing was sent or read. Run again with dry_run false to do it.'],
      },
    };
  },
});
