import type { Account, InboxIdentity } from '../auth/account-registry.js';
import type { JmapSessionInfo } from '../jmap/jmap-types.js';
import { resolveInboxAddress } from '../jmap/resolve-inbox-address.js';

type Facts = { session: JmapSessionInfo | undefined; identity: InboxIdentity; accountId?: string; inbox?: string };
const role = (name: string) => (f: Facts) => f.session?.mailboxIdsByRole[name];

/** Names the client fills itself (spec §2.9 plus the role mailboxes and identity), and where each value comes from. */
const builtins: Record<string, (facts: Facts) => string | undefined> = {
  ACCOUNT_ID: (f) => f.accountId,
  INBOX: (f) => f.inbox,
  INBOX_MAILBOX_ID: (f) => f.session?.inboxMailboxId ?? role('inbox')(f),
  UPLOAD_URL: (f) => f.session?.uploadUrl ?? f.identity.uploadUrl,
  DOWNLOAD_URL: (f) => f.session?.downloadUrl ?? f.identity.downloadUrl,
  IDENTITY_ID: (f) => f.session?.identityId,
  DRAFTS_MAILBOX_ID: role('drafts'),
  SENT_MAILBOX_ID: role('sent'),
  TRASH_MAILBOX_ID: role('trash'),
  JUNK_MAILBOX_ID: role('junk'),
  ARCHIVE_MAILBOX_ID: role('archive'),
  SERVICE_ACCOUNT_ID: (f) => f.identity.serviceAccountId,
};
export const builtinVariableNames = Object.keys(builtins);

/**
 * The built-in placeholders from the session and the chosen inbox; names without a known value are left out,
 * so a dry run shows them unresolved. $SERVICE_ACCOUNT_ID, only on a connected account, is the service's inbox UUID.
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
  const facts: Facts = { session, identity, accountId, inbox: inbox.address };
  const out: Record<string, string> = {};
  for (const [name, source] of Object.entries(builtins)) {
    const value = source(facts);
    if (value) out[name] = value;
  }
  return out;
}
