/**
 * Facts of the wire protocol (spec §2.5, §4.2, §4.3). This is the only module the sandbox and
 * the client share, so a misunderstanding elsewhere cannot pass both sides unnoticed.
 */

/** Proof-of-work endpoints on the auth host (spec §4.3). */
export const authPaths = {
  challenge: '/api/v1/challenge',
  session: '/api/v1/session',
  capability: '/api/v1/capability',
  jwks: '/.well-known/jwks.json',
} as const;

/** Spec §4.2, RFC 8620 §2.2. */
export const jmapSessionPath = '/.well-known/jmap';

/** scrypt parameters of the proof of work (spec §4.3): about 16 MiB of memory per hash. */
export const scryptParams = { N: 16384, r: 8, p: 1, dkLen: 64 } as const;

/**
 * The live service's salt. Its UTF-8 text is the salt; it is never hex-decoded
 * (spec §4.3, shared/reference/live-service.md).
 */
export const liveScryptSalt = '0b980734412c292d6549110276b604ab1dea4883bd460d77d1b984adf8bca083';

/** The live service's hosts and default inbox domain (shared/reference/live-service.md). */
export const liveEndpoints = {
  authUrl: 'https://auth.atomicmail.ai',
  apiUrl: 'https://api.atomicmail.ai',
  inboxDomain: 'atomicmail.ai',
} as const;

/** Username length bounds (spec §1 fact 1, §8). */
export const usernameLength = { min: 5, max: 21 } as const;

/**
 * Username character rule, documented for users: lowercase letters, digits, dot, hyphen and
 * underscore, starting and ending with a letter or digit. The live service does not publish its
 * rule; this one keeps every name a valid e-mail local part.
 */
export const usernamePattern = /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/;

/** JMAP capability URNs (RFC 8620, 8621, 9404). */
export const jmapCapabilities = {
  core: 'urn:ietf:params:jmap:core',
  mail: 'urn:ietf:params:jmap:mail',
  submission: 'urn:ietf:params:jmap:submission',
  vacationResponse: 'urn:ietf:params:jmap:vacationresponse',
  blob: 'urn:ietf:params:jmap:blob',
} as const;

/** OAuth scopes of the service (spec §2.3): reading everything but sends, and sending. */
export const oauthScopes = { read: 'mail.read', send: 'mail.send' } as const;

/** The header that picks the inbox of a request on the OAuth path (spec §4.2 rules 1–3). */
export const serviceAccountHeader = 'x-service-account-id';

/** The inbox list of an OAuth access token's person, on the auth host (spec §4.1, §2.1). */
export const inboxListPath = '/api/v1/agents';

/**
 * The sandbox's settings file, written into its data directory at every start (next to
 * client.env) and read by the client's `--sandbox DATA_DIR`: JSON with `format` set to
 * `sandboxSettingsFormat`, then authUrl, apiUrl, scryptSalt, inboxDomain, authservId (strings),
 * credentialsDir (absolute), mcpUrl and smtpPort. A reader refuses any other format.
 */
export const sandboxSettingsFile = 'sandbox.json';
export const sandboxSettingsFormat = 'agent-mailbox-sandbox-settings/1';
