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
  maxMailboxDepth: 1,
  maxSizeMailboxName: 255,
  maxSizeAttachmentsPerEmail: 25 * 1024 * 1024,
  maxSizeBlobSet: 25 * 1024 * 1024,
  maxDataSources: 64,
  maxEmailQueryLimit: 1000,
  maxDelayedSend: 0,
} as const;
