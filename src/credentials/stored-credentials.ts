import * as z from 'zod';

/** credentials.json: the live service's clients' fields plus our own; loose, so no other version's are stripped. */
export const storedCredentialsSchema = z.looseObject({
  apiKey: z.string().min(1),
  inboxId: z.string().min(1),
  authUrl: z.string().optional(),
  apiUrl: z.string().optional(),
  scryptSalt: z.string().optional(),
  uploadUrl: z.string().optional(),
  downloadUrl: z.string().optional(),
  /** Full address once known. */
  inbox: z.string().optional(),
  /** JMAP account id (on the live service: the full address). */
  accountId: z.string().optional(),
  inboxDomain: z.string().optional(),
  watch: z.enum(['scheduled', 'on-demand']).optional(),
  wakeCommand: z.string().optional(),
  createdAt: z.string().optional(),
});
export type StoredCredentials = z.infer<typeof storedCredentialsSchema>;

/** The JMAP session facts cached in state.json, so placeholders cost no round trip. */
export const cachedJmapSessionSchema = z.looseObject({
  sessionUrl: z.string(),
  apiUrl: z.string(),
  uploadUrl: z.string(),
  downloadUrl: z.string(),
  accountId: z.string(),
  capabilities: z.array(z.string()),
  inboxMailboxId: z.string().optional(),
  identityId: z.string().optional(),
  mailboxIdsByRole: z.record(z.string(), z.string()).optional(),
  fetchedAt: z.string(),
});

/** state.json: caches and cursors, apart from credentials.json so the apiKey file is written only at sign-up/login. */
export const accountStateSchema = z.looseObject({
  session: cachedJmapSessionSchema.optional(),
  listNewState: z.string().optional(),
  /** Email state after the last successful wake. */
  wakeState: z.string().optional(),
  lastWakeAt: z.string().optional(),
});
export type AccountState = z.infer<typeof accountStateSchema>;
