import * as z from 'zod';
import { cachedJmapSessionSchema } from '../credentials/stored-credentials.js';

/** Wire shapes of JMAP (RFC 8620 §3.3, §3.4, §3.6.1), validated at the HTTP boundary. */

export const invocationSchema = z.tuple([z.string(), z.record(z.string(), z.unknown()), z.string()]);
export type Invocation = z.infer<typeof invocationSchema>;

export const jmapRequestSchema = z.object({
  using: z.array(z.string()),
  methodCalls: z.array(invocationSchema),
  createdIds: z.record(z.string(), z.string()).optional(),
});
export type JmapRequest = z.infer<typeof jmapRequestSchema>;

export const jmapResponseSchema = z.looseObject({
  methodResponses: z.array(invocationSchema),
  sessionState: z.string().optional(),
  createdIds: z.record(z.string(), z.string()).optional(),
  /** The live service's follow-up hints (not RFC 8620); kept for the agent. */
  _next: z.array(z.string()).optional(),
});
export type JmapResponse = z.infer<typeof jmapResponseSchema>;

/** RFC 8620 §3.6.1 request-level error (RFC 7807 problem details). */
export const problemDetailsSchema = z.looseObject({
  type: z.string(),
  status: z.number().optional(),
  detail: z.string().optional(),
  limit: z.string().optional(),
});

/** RFC 8620 §5.2 /changes response: the fields the waits read. */
export const changesResponseSchema = z.looseObject({
  newState: z.string(),
  hasMoreChanges: z.boolean(),
  created: z.array(z.string()),
});

/** RFC 8620 §6.1 upload response. */
export const uploadResponseSchema = z.looseObject({
  accountId: z.string().optional(),
  blobId: z.string(),
  type: z.string(),
  size: z.number(),
});

/** RFC 8620 §2 session resource: only the fields this client uses. */
export const sessionResourceSchema = z.looseObject({
  capabilities: z.record(z.string(), z.unknown()),
  accounts: z.record(
    z.string(),
    z.looseObject({ name: z.string().optional(), accountCapabilities: z.record(z.string(), z.unknown()).optional() }),
  ),
  primaryAccounts: z.record(z.string(), z.string()),
  apiUrl: z.string(),
  uploadUrl: z.string(),
  downloadUrl: z.string(),
  /** RFC 8620 §7.3 push; absent where the server has none that works (the Cyrus gateway). */
  eventSourceUrl: z.string().optional(),
  state: z.string().optional(),
});

/** Session limits the client checks before sending (RFC 8620 §2, RFC 8621 §1.3.1, RFC 9404 §4). */
const jmapLimitsSchema = z.object({
  maxSizeUpload: z.number().optional(),
  maxSizeRequest: z.number().optional(),
  maxCallsInRequest: z.number().optional(),
  maxSizeAttachmentsPerEmail: z.number().optional(),
  /** null in the session means no client-side cap (spec §2.6); absent here then. */
  maxSizeBlobSet: z.number().optional(),
});
export type JmapLimits = z.infer<typeof jmapLimitsSchema>;

/** The resolved session facts, as cached in state.json `session` (the stored schema and what this client adds). */
export const jmapSessionInfoSchema = z.object({
  ...cachedJmapSessionSchema.shape,
  /** Capability URNs of the primary mail account. */
  accountCapabilities: z.array(z.string()).default([]),
  limits: jmapLimitsSchema.default({}),
  sessionState: z.string().optional(),
  /** RFC 8620 §7.3 template (types, closeafter, ping), absolute; wait_for_mail polls without it. */
  eventSourceUrl: z.string().optional(),
  mailboxIdsByRole: z.record(z.string(), z.string()).default({}),
});
export type JmapSessionInfo = z.infer<typeof jmapSessionInfoSchema>;
