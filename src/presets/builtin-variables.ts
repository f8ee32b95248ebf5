import type { Account } from '../auth/account-registry.js';
import type { JmapSessionInfo } from '../jmap/jmap-types.js';
import { resolveInboxAddress } from '../jmap/resolve-inbox-address.js';

/** Names the client fills itself (spec §2.9 plus the role mailboxes and identity). */
export const builtinVariableNames = [
  'ACCOUNT_ID',
  'INBOX',
  'INBOX_MAILBOX_ID',
  'UPLOAD_URL',
  'DOWNLOAD_URL',
  'IDENTITY_ID',
  'DRAFTS_MAILBOX_ID',
  'SENT_MAILBOX_ID',
  'TRASH_MAILBOX_ID',
  'JUNK_MAILBOX_ID',
  'ARCHIVE_MAILBOX_ID',
  'SERVICE_ACCOUNT_ID',
] as const;

/**
 * The built-in placeholders from the session (fetched or cached) and the chosen inbox (its
 * credentials.json, or its entry in a connected account's inbox list); names without a known value
 * are left out, so a dry run shows them unresolved. $ACCOUNT_ID is the JMAP account id;
 * $SERVICE_ACCOUNT_ID, only on a connected account, is the service's inbox UUID (X-Service-Account-Id).
 */
export async function builtinVariables(
  account: Account,
  session: JmapSessionInfo | undefined,
): Promise<Record<string, string>> {
  const identity = await account.inbox();
  const config = await account.config();
  const accountId = session?.accountId ?? identity.jmapAccountId;
  const inbox = resolveInboxAddress({
    storedInboxId: identity.inboxId,
    ...(accountId ? { sessionAccountId: accountId } : {}),
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, the default inbox domain is the service's, which resolveInboxAddress falls back to
    ...(config.sources.inboxDomain !== 'default' ? { configuredDomain: config.inboxDomain } : {}),
  });
  const roles = session?.mailboxIdsByRole ?? {};
  const values: Record<string, string | undefined> = {
    ACCOUNT_ID: accountId,
    INBOX: inbox.address,
    INBOX_MAILBOX_ID: session?.inboxMailboxId ?? roles.inbox,
    UPLOAD_URL: session?.uploadUrl ?? identity.uploadUrl,
    DOWNLOAD_URL: session?.downloadUrl ?? identity.downloadUrl,
    IDENTITY_ID: session?.identityId,
    DRAFTS_MAILBOX_ID: roles.drafts,
    SENT_MAILBOX_ID: roles.sent,
    TRASH_MAILBOX_ID: roles.trash,
    JUNK_MAILBOX_ID: roles.junk,
    ARCHIVE_MAILBOX_ID: roles.archive,
    SERVICE_ACCOUNT_ID: identity.serviceAccountId,
  };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (value) out[name] = value;
  return out;
}
