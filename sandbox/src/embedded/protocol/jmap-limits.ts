/** Limits advertised in the session and enforced by the embedded host (RFC 8620 §2, RFC 9404 §4). */
export const jmapLimits = {
  maxSizeUpload: 50 * 1024 * 1024,
  maxConcurrentUpload: 4,
  maxSizeRequest: 10 * 1024 * 1024,
  maxConcurrentRequests: 8,
  maxCallsInRequest: 50,
  maxObjectsInGet: 500,
  maxObjectsInSet: 500,
  collationAlgorithms: ['i;ascii-numeric', 'i;ascii-casemap', 'i;unicode-casemap'],
} as const;

/** Mail and blob account limits (RFC 8621 §1.3.1, RFC 9404 §4). */
export const accountLimits = {
  maxMailboxesPerEmail: null,
  maxMailboxDepth: 10,
  maxSizeMailboxName: 255,
  maxSizeAttachmentsPerEmail: 25 * 1024 * 1024,
  maxSizeBlobSet: 25 * 1024 * 1024,
  maxDataSources: 64,
  maxEmailQueryLimit: 1000,
  maxDelayedSend: 0,
} as const;

/**
 * The sandbox's own capability: RFC 8620 has no place for filter or nesting bounds, so they are
 * advertised under a vendor URI in the session's capabilities (RFC 8620 §2 allows vendor keys).
 */
export const sandboxLimitsCapability = 'https://github.com/agent-mailbox/agent-mailbox#sandbox-limits';

/** Bounds on the work one request may ask for; one request must never freeze the auth host that shares the process. */
export const sandboxLimits = {
  /** Deepest JSON nesting of a request body (arrays and objects). */
  maxRequestDepth: 64,
  /** Conditions plus operators in one Email/query filter. */
  maxFilterConditions: 1000,
  /** Deepest nesting of operators in one filter. */
  maxFilterDepth: 16,
  /** Condition tests one Email/query may run (conditions × emails in the account). */
  maxFilterWork: 2_000_000,
  /** Open EventSource streams per account. */
  maxEventStreams: 4,
  /** Mailboxes per account; Mailbox/set answers overQuota beyond (RFC 8620 §5.3). */
  maxMailboxes: 1000,
  /** Identities per account; Identity/set answers overQuota beyond. */
  maxIdentities: 100,
} as const;
