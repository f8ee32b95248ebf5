import type { AccountDirectory } from '../../oauth/accounts/account-directory.js';
import type { MailStoreDeps } from '../mail/mail-store-client.js';

/** The service around the hosted tools. */
export interface HostedToolDeps {
  /** People, inboxes and their accountIds: ownership is looked up here on every call. */
  directory: AccountDirectory;
  /** The sandbox's own inbox domain (an inbox's `inboxId` is its local name there). */
  domain: string;
  mailStore: MailStoreDeps;
  /** `{mcp_url}`, for the links of connector search results. */
  mcpUrl(): string;
  /** The operator's switch: false leaves jmap_request out of the server (run_preset stays). */
  isJmapRequestEnabled: boolean;
}
