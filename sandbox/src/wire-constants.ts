/**
 * Facts of the wire protocol (spec §2.5, §4.2, §4.3) as the service side reads them. The client
 * keeps its own copy (agent-mailbox's src/wire-constants.ts): the two packages are published apart
 * and share no code, and test/unit/architecture/wire-constants.test.ts checks every name here
 * equals the client's, so a misunderstanding of the wire cannot pass both sides unnoticed.
 */

/** Proof-of-work endpoints on the auth host (spec §4.3). */
export const authPaths = {
  challenge: '/api/v1/challenge',
  session: '/api/v1/session',
  capability: '/api/v1/capability',
  jwks: '/.well-known/jwks.json',
} as const;

/** JMAP session discovery path on the API host (spec §4.2, RFC 8620 §2.2). */
export const jmapSessionPath = '/.well-known/jmap';

/** scrypt parameters of the proof of work (spec §4.3): about 16 MiB of memory per hash. */
export const scryptParams = { N: 16384, r: 8, p: 1, dkLen: 64 } as const;

/**
 * The live service's salt, the sandbox's default so a client with no salt setting solves its
 * proofs of work. Its UTF-8 text is the salt; it is never hex-decoded (spec §4.3).
 */
export const liveScryptSalt = '0b980734412c292d6549110276b604ab1dea4883bd460d77d1b984adf8bca083';

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

/**
 * The sandbox's settings file, written into its data directory at every start (next to
 * client.env) and read by the client's `--sandbox DATA_DIR` (docs/sandbox.md): JSON with `format`
 * set to `sandboxSettingsFormat`, then authUrl, apiUrl, scryptSalt, inboxDomain, authservId
 * (strings), credentialsDir (absolute), mcpUrl and smtpPort. A reader refuses any other format.
 */
export const sandboxSettingsFile = 'sandbox.json';
export const sandboxSettingsFormat = 'agent-mailbox-sandbox-settings/1';
