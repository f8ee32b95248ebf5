import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import * as z from 'zod';
import { MailboxError } from '../../errors.js';
import type { PolicySettings } from '../../policy/policy-change.js';
import { onOff, receiveModes, sendModes } from '../../policy/policy-schema.js';
import { defineLazyOperation, optionalText, writesLocal } from '../define-operation.js';
import { policyChangeOutput, runPolicyChange } from './policy-change-run.js';
import { policyTargetInput } from './policy-target.js';

const capInput = (what: string) =>
  z
    .string()
    .regex(/^(\d{1,7}|none)$/, `${what} must be a whole number or "none"`)
    .optional()
    .describe(
      `${what}: a whole number, or "none" to remove the cap (removing or raising one needs the operator at a terminal).`,
    );

const capValue = (raw: string | undefined): number | null | undefined =>
  raw === undefined ? undefined : raw === 'none' ? null : Number(raw);

export const policySetOperation = defineLazyOperation({
  name: 'policy_set',
  title: "Set the operator's policy",
  description:
    'Set send and receive rules of one layer (--user for every inbox of this user, else one inbox): who the agent may write to (open, known, allowlist, confirm, off), caps, the secret scan, where attachments may come from, whether new inboxes may be registered. Anything that widens what the agent may do needs the operator at a terminal and a typed yes.',
  schemas: () => ({
    input: z.object({
      send: z
        .enum(sendModes)
        .optional()
        .describe(
          "Send mode: open (anyone not blocked), known, allowlist, confirm (anyone else needs a person's yes) or off.",
        ),
      max_sends_per_hour: capInput('Sends per hour'),
      max_sends_per_day: capInput('Sends per day'),
      max_recipients: capInput('Recipients per mail'),
      secret_scan: z.enum(onOff).optional().describe('Refuse mail carrying credentials (on by default).'),
      attach_from: optionalText('The only directory attachments may come from, or "none" to lift the limit.'),
      new_inboxes: z.enum(onOff).optional().describe('off: the agent may not register or log in to further inboxes.'),
      receive: z
        .enum(receiveModes)
        .optional()
        .describe('Receive mode: open, or allowlist (only allowed, authenticated senders are shown).'),
      ...policyTargetInput(),
    }),
    output: policyChangeOutput(),
  }),
  annotations: writesLocal,
  doors: ['cli'],
  cli: { path: ['policy', 'set'] },
  present: (result) => ({ lead: [result.summary] }),
  async run(input, ctx) {
    const settings: PolicySettings = {
      ...(input.send ? { sendMode: input.send } : {}),
      ...(input.max_sends_per_hour !== undefined ? { maxSendsPerHour: capValue(input.max_sends_per_hour) } : {}),
      ...(input.max_sends_per_day !== undefined ? { maxSendsPerDay: capValue(input.max_sends_per_day) } : {}),
      ...(input.max_recipients !== undefined ? { maxRecipients: capValue(input.max_recipients) } : {}),
      ...(input.secret_scan ? { secretScan: input.secret_scan } : {}),
      ...(input.new_inboxes ? { newInboxes: input.new_inboxes } : {}),
      ...(input.receive ? { receiveMode: input.receive } : {}),
    };
    if (input.attach_from !== undefined) {
      const dir = input.attach_from === 'none' ? null : resolve(ctx.workingDir, input.attach_from);
      if (dir !== null && !(await stat(dir).catch(() => undefined))?.isDirectory())
        throw new MailboxError({
          code: 'invalid_input',
          message: `${dir} is not a directory; nothing was changed.`,
          hint: 'Give an existing directory for --attach-from.',
        });
      settings.attachFrom = dir;
    }
    if (Object.keys(settings).length === 0)
      throw new MailboxError({
        code: 'usage',
        message: 'policy set needs at least one setting.',
        hint: 'For example: --send allowlist, --max-sends-per-hour 20, --secret-scan on.',
      });
    return runPolicyChange(ctx, input, { kind: 'set', settings }, 'policy set');
  },
});
