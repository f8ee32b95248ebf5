import type { AccountDirectory } from './accounts/account-directory.js';
import type { AccessTokens } from './grants/access-tokens.js';
import type { AddressRateLimiter } from './clients/address-rate-limiter.js';
import type { AuthorizationCodes } from './grants/authorization-codes.js';
import type { BrowserSessions } from './browser/browser-sessions.js';
import type { ClientMetadataDocuments } from './clients/client-metadata-documents.js';
import type { ClientRecord, ClientRegistry } from './clients/client-registry.js';
import { ClientDocumentError, isClientIdUrl } from './clients/client-metadata-documents.js';
import type { GrantStore } from './grants/grant-store.js';
import type { InboxProvisionerDeps } from './accounts/inbox-provisioner.js';
import type { ResourceIdentifiers } from './resource-indicators.js';

/** A person whose authorizations are approved without a page (--oauth-auto-approve). */
export interface AutoApprovedPerson {
  personId: string;
  name: string;
  /** The first inbox named on the command line: the default of every grant (none with `withoutDefault`). */
  defaultAccountId: string | undefined;
  /** Every inbox named for the person, in command-line order. */
  accountIds: string[];
}

/** What the OAuth endpoints share. */
export interface OAuthHostContext {
  /** The issuer identifier: the auth host's URL, known once it listens. */
  issuer(): string;
  resources: ResourceIdentifiers;
  domain: string;
  now(): number;
  directory: AccountDirectory;
  clients: ClientRegistry;
  documents: ClientMetadataDocuments;
  grants: GrantStore;
  codes: AuthorizationCodes;
  tokens: AccessTokens;
  browsers: BrowserSessions;
  provisioner: InboxProvisionerDeps;
  /** Set: authorization approves at once for these people (the first unless login_hint names another). */
  autoApprove: AutoApprovedPerson[] | undefined;
  registrationLimiter: AddressRateLimiter | undefined;
  log(line: string): void;
}

/** A client by id: registered here, or described by the metadata document its URL serves. */
export async function findClient(
  ctx: OAuthHostContext,
  clientId: string,
): Promise<{ client: ClientRecord } | { problem: string }> {
  if (isClientIdUrl(clientId)) {
    try {
      return { client: await ctx.documents.resolve(clientId) };
    } catch (error) {
      if (error instanceof ClientDocumentError) return { problem: error.message };
      throw error;
    }
  }
  const client = ctx.clients.get(clientId);
  return client
    ? { client }
    : { problem: 'This application is not known to the authorization server (unknown client_id).' };
}
