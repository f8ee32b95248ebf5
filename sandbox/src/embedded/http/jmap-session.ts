import { createHash } from 'node:crypto';
import { jmapCapabilities } from '../../wire-constants.js';
import { accountLimits, jmapLimits, sandboxLimits, sandboxLimitsCapability } from '../protocol/jmap-limits.js';

/** Sort properties Email/query accepts, advertised as emailQuerySortOptions (RFC 8621 §1.3.1). */
const emailQuerySortOptions = [
  'receivedAt',
  'sentAt',
  'size',
  'from',
  'to',
  'subject',
  'hasKeyword',
  'someInThreadHaveKeyword',
  'allInThreadHaveKeyword',
];

/** The RFC 8620 §2 session resource for one inbox; all URLs absolute (unlike Cyrus, see cyrus.md). */
export function buildSession(address: string, baseUrl: string): Record<string, unknown> {
  const base = baseUrl.replace(/\/+$/, '');
  const session: Record<string, unknown> = {
    capabilities: {
      [jmapCapabilities.core]: { ...jmapLimits, collationAlgorithms: [...jmapLimits.collationAlgorithms] },
      [jmapCapabilities.mail]: {},
      [jmapCapabilities.submission]: {},
      [jmapCapabilities.vacationResponse]: {},
      [jmapCapabilities.blob]: {},
      [sandboxLimitsCapability]: { ...sandboxLimits },
    },
    accounts: {
      [address]: {
        name: address,
        isPersonal: true,
        isReadOnly: false,
        accountCapabilities: {
          [jmapCapabilities.mail]: {
            maxMailboxesPerEmail: accountLimits.maxMailboxesPerEmail,
            maxMailboxDepth: accountLimits.maxMailboxDepth,
            maxSizeMailboxName: accountLimits.maxSizeMailboxName,
            maxSizeAttachmentsPerEmail: accountLimits.maxSizeAttachmentsPerEmail,
            emailQuerySortOptions,
            mayCreateTopLevelMailbox: true,
          },
          [jmapCapabilities.submission]: { maxDelayedSend: accountLimits.maxDelayedSend, submissionExtensions: {} },
          // RFC 8621 §1.3.3: the capability object is empty.
          [jmapCapabilities.vacationResponse]: {},
          // RFC 9404 §4 names the type list `supportedTypeNames`.
          [jmapCapabilities.blob]: {
            maxSizeBlobSet: accountLimits.maxSizeBlobSet,
            maxDataSources: accountLimits.maxDataSources,
            supportedTypeNames: ['Email', 'Mailbox', 'Thread'],
            supportedDigestAlgorithms: ['sha', 'sha-256', 'sha-512'],
          },
        },
      },
    },
    primaryAccounts: {
      [jmapCapabilities.mail]: address,
      [jmapCapabilities.submission]: address,
      [jmapCapabilities.vacationResponse]: address,
      [jmapCapabilities.blob]: address,
    },
    username: address,
    apiUrl: `${base}/jmap`,
    downloadUrl: `${base}/download/{accountId}/{blobId}/{name}?type={type}`,
    uploadUrl: `${base}/upload/{accountId}/`,
    eventSourceUrl: `${base}/eventsource/?types={types}&closeafter={closeafter}&ping={ping}`,
  };
  session['state'] = sessionState(session);
  return session;
}

/** A stable state for a session object: it changes only when the session's content does. */
export function sessionState(session: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(session)).digest('hex').slice(0, 12);
}
