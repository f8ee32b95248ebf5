import * as z from 'zod';
import { invocationSchema } from '../jmap/jmap-types.js';

/**
 * A preset file (presets/*.json): data, read both by jmap_request and by the generated
 * `help presets` topic. Steps run in order; a step's `capture` turns parts of its response into
 * variables for later steps, which is how `reply` fills its create object without result
 * references inside it (JMAP forbids them there; jmap.md).
 */

const variableName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'variable names are UPPER_SNAKE_CASE');

/** Value shapes the runner normalises before substitution (live-service.md fixed bug 3). */
export const variableFormats = ['string', 'integer', 'address_list'] as const;

export const presetVariableSchema = z.object({
  description: z.string(),
  required: z.boolean(),
  default: z.unknown().optional(),
  example: z.unknown().optional(),
  format: z.enum(variableFormats).optional(),
});

/** Transforms a capture may apply; implemented in preset-transforms.ts. */
export const captureTransforms = [
  'reply_subject',
  'reply_to',
  'reply_references',
  'reply_all_cc',
  'quote_original',
  'automatic_reason',
] as const;

export const captureSchema = z.object({
  /** Call id of the method response to read. */
  from: z.string(),
  /** RFC 6901 JSON pointer into that response's arguments. */
  pointer: z.string(),
  transform: z.enum(captureTransforms).optional(),
  /** Used when the pointer finds nothing or null; without it a miss fails the run. */
  default: z.unknown().optional(),
  /** What to tell the caller when the pointer finds nothing. */
  missingHint: z.string().optional(),
});
export type Capture = z.infer<typeof captureSchema>;

export const presetStepSchema = z.object({
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
      /** Variable that receives the saved cursor, absent on the first run. */
      variable: variableName,
      /** Captured variable whose value is saved after a successful run. */
      saveFrom: variableName,
      /** Method error types that mean the cursor is unusable: it is cleared. */
      resetOn: z.array(z.string()).optional(),
    })
    .optional(),
  /**
   * The preset waits for new mail (wait_for_mail, wait-for-mail.ts): its `start` step reads the
   * current Email state, its `changes` step is repeated on each wake until mail from others arrives.
   */
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
  /**
   * RFC 3834 loop guard: the run stops before sending when this captured variable is set (the
   * original is automatic mail), unless the caller set `allowVariable`.
   */
  loopGuard: z.object({ reasonVariable: variableName, allowVariable: variableName }).optional(),
  /**
   * Next steps after a successful run: a sentence, or a table call with $VARS filled in. `when`
   * keeps a step to the runs it fits: `listed` (at least one message from others was listed),
   * `more_changes` (an Email/changes answered hasMoreChanges: true).
   */
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
