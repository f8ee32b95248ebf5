import * as z from 'zod';
import { invocationSchema } from '../jmap/jmap-types.js';

/**
 * A preset file (presets/*.json). Steps run in order; a step's `capture` turns parts of its response into variables
 * for later steps: `reply` fills its create object so, as JMAP forbids result references inside it.
 */

const variableName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'variable names are UPPER_SNAKE_CASE');

const presetVariableSchema = z.object({
  description: z.string(),
  required: z.boolean(),
  default: z.unknown().optional(),
  example: z.unknown().optional(),
  /** Value shapes the runner normalises before substitution (live-service.md fixed bug 3). */
  format: z.enum(['string', 'integer', 'address_list']).optional(),
});

const captureSchema = z.object({
  /** The call id of the response to read, and an RFC 6901 pointer into its arguments. */
  from: z.string(),
  pointer: z.string(),
  transform: z
    .enum(['reply_subject', 'reply_to', 'reply_references', 'reply_all_cc', 'quote_original', 'automatic_reason'])
    .optional(),
  /** Used when the pointer finds nothing or null; without it a miss fails the run (with `missingHint`). */
  default: z.unknown().optional(),
  missingHint: z.string().optional(),
});
export type Capture = z.infer<typeof captureSchema>;

const presetStepSchema = z.object({
  id: z.string(),
  description: z.string().optional(),
  /** Run the step only when a variable is (or is not) set: e.g. list_new's first run. */
  when: z.object({ defined: variableName.optional(), missing: variableName.optional() }).optional(),
  using: z.array(z.string()).optional(),
  methodCalls: z.array(invocationSchema).min(1),
  capture: z.record(variableName, captureSchema).optional(),
  /** Said in the result when this step runs (list_sent without a Sent mailbox: what it used instead). */
  note: z.string().optional(),
});
export type PresetStep = z.infer<typeof presetStepSchema>;

const nextCondition = z.enum(['listed', 'more_changes']);
export type NextCondition = z.infer<typeof nextCondition>;

export const presetSchema = z.object({
  description: z.string(),
  variables: z.record(variableName, presetVariableSchema),
  /** Capabilities the server must advertise (checked before anything is sent). */
  requires: z.array(z.string()).optional(),
  /** At least one of these variables must be given (search). */
  atLeastOneOf: z.array(variableName).optional(),
  /** Files must be given with `attachments` (send_mail_blob_attachment). */
  needsAttachments: z.boolean().optional(),
  /** A cursor kept in state.json between runs (list_new). */
  cursor: z
    .object({
      stateField: z.literal('listNewState'),
      /** Receives the saved cursor (absent on the first run); `saveFrom` is saved after a successful run. */
      variable: variableName,
      saveFrom: variableName,
      /** Method error types that clear the cursor. */
      resetOn: z.array(z.string()).optional(),
    })
    .optional(),
  /** wait_for_mail: the `start` step reads the Email state, `changes` repeats on each wake until mail from others. */
  wait: z
    .object({
      timeoutVariable: variableName,
      /** Longest wait a caller may ask for; an MCP call is clamped further to its per-call budget. */
      maxSeconds: z.number().int().positive(),
      /** Optional filter variables: FROM (part of the sender's address or name), THREAD_ID. */
      fromVariable: variableName.optional(),
      threadVariable: variableName.optional(),
    })
    .optional(),
  /** How the model-facing text shows the result (present-jmap-result.ts); raw JSON when absent. */
  view: z.enum(['listing', 'message', 'thread']).optional(),
  /** list_new: leave the inbox's own sent copies and drafts out of "new mail". */
  excludeOwnMail: z.boolean().optional(),
  /** RFC 3834 loop guard: no send when this captured variable is set (automatic mail), unless `allowVariable` is. */
  loopGuard: z.object({ reasonVariable: variableName, allowVariable: variableName }).optional(),
  /** Next steps after a success, a sentence or a table call; `when`: `listed` (others' mail listed), `more_changes`. */
  next: z
    .array(
      z.union([
        z.string(),
        z.object({ text: z.string(), when: nextCondition }),
        z.object({ operation: z.string(), input: z.record(z.string(), z.unknown()), when: nextCondition.optional() }),
      ]),
    )
    .optional(),
  steps: z.array(presetStepSchema).min(1),
});
export type Preset = z.infer<typeof presetSchema>;
