import * as z from 'zod';

/** An OAuth directory's files: the grant is ONE file (a rotation is one rename); each inbox has a state folder. */
export const oauthFiles = {
  grant: 'oauth.json',
  accessTokens: 'access-tokens.json',
  inboxes: 'inboxes.json',
  /** Written before a refresh request leaves and removed once its answer is stored. */
  renewal: 'renewal-pending.json',
  inboxFolders: 'inboxes',
} as const;

/** The authorization server metadata fields the client uses (RFC 8414; spec §2.3), as discovered at connect. */
export const storedServerSchema = z.looseObject({
  issuer: z.string().min(1),
  authorization_endpoint: z.string().optional(),
  token_endpoint: z.string().min(1),
  revocation_endpoint: z.string().optional(),
  registration_endpoint: z.string().optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});

/** oauth.json; `generation` grows with every rotation, so recovery can tell which of two copies is newer. */
export const oauthGrantSchema = z.looseObject({
  kind: z.literal('oauth'),
  version: z.literal(1),
  server: storedServerSchema,
  apiUrl: z.string().min(1),
  /** RFC 8707 resource of every access token (default `{api_url}/jmap`). */
  resource: z.string().min(1),
  clientId: z.string().min(1),
  /** Only for a confidential client (client_secret_post). */
  clientSecret: z.string().min(1).optional(),
  /** Granted at consent (space-separated); a refresh may ask for less. */
  scope: z.string(),
  refreshToken: z.string().min(1),
  generation: z.number().int().min(1),
  rotatedAt: z.string(),
  connectedAt: z.string(),
});
export type StoredGrant = z.infer<typeof oauthGrantSchema>;

/** access-tokens.json: access tokens in hand, one per scope set, with the moment each expires (ms). */
export const accessTokensSchema = z.object({
  /** The grant generation they came with: a reconnect makes older tokens worthless. */
  connectedAt: z.string(),
  tokens: z.array(
    z.object({ token: z.string().min(1), scope: z.string(), expiresAt: z.number(), lifetimeSeconds: z.number() }),
  ),
});
export type StoredAccessTokens = z.infer<typeof accessTokensSchema>;

/** One inbox of the grant's person (spec §2.1), with the address the client derived for it. */
const knownInboxSchema = z.object({
  /** The value of X-Service-Account-Id. */
  accountId: z.string().min(1),
  /** The local name, or the full address on a custom domain. */
  inboxId: z.string().min(1),
  address: z.string().min(1),
  status: z.string().optional(),
});
export type KnownInbox = z.infer<typeof knownInboxSchema>;

/** inboxes.json: the last inbox list and which inbox the person chose at consent, when the service said. */
export const inboxListFileSchema = z.object({
  fetchedAt: z.string(),
  defaultAccountId: z.string().optional(),
  inboxes: z.array(knownInboxSchema),
});
export type StoredInboxList = z.infer<typeof inboxListFileSchema>;

/** renewal-pending.json: which refresh token was on its way to the server, by digest only. */
export const renewalJournalSchema = z.object({
  pid: z.number(),
  startedAt: z.string(),
  refreshTokenDigest: z.string(),
});
export type RenewalJournal = z.infer<typeof renewalJournalSchema>;
