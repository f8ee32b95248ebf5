import { z } from 'zod';
import type { InboxRecord } from '../../oauth/accounts/account-directory.js';
import type { AccountDirectory } from '../../oauth/accounts/account-directory.js';
import { accountIdPattern } from '../../oauth/resource-indicators.js';
import type { OAuthScope } from '../../oauth/oauth-scopes.js';
import type { HostedCaller } from '../endpoint/hosted-caller.js';
import { HostedToolError } from '../tools/hosted-tool-error.js';

/** The `agent_id` input every inbox tool takes (spec §4.4). */
export const agentIdInput = z
  .string()
  .regex(accountIdPattern, 'agent_id is an accountId (a lowercase UUID) from list_agents')
  .optional()
  .describe(
    'Inbox to use: its accountId from list_agents. Default: the inbox chosen when the connection was authorized, else the only one.',
  );

/**
 * The inbox a call works on (spec §4.4): `agent_id` when the caller owns it; else the inbox bound
 * at consent (or to the apiKey); else the only one owned. With several and no default the call is
 * answered with a prompt to call list_agents. Ownership is looked up again on every call.
 */
export function chooseInbox(
  caller: HostedCaller,
  agentId: string | undefined,
  directory: AccountDirectory,
): InboxRecord {
  if (caller.kind === 'api_key') {
    if (agentId === undefined || agentId === caller.inbox.accountId) return caller.inbox;
    throw new HostedToolError(
      'access_denied',
      `This connection's apiKey opens only the inbox ${caller.inbox.accountId}; agent_id ${agentId} is not it.`,
      "Leave agent_id out, or connect with that inbox's own apiKey or with OAuth.",
      { tool: 'list_agents' },
    );
  }
  if (agentId !== undefined) {
    const owned = directory.ownedInbox(caller.personId, agentId);
    if (!owned)
      throw new HostedToolError(
        'access_denied',
        `The inbox ${agentId} is not one of this account's inboxes.`,
        'Call list_agents and use one of the accountIds it lists.',
        { tool: 'list_agents' },
      );
    return owned;
  }
  const fromConsent =
    caller.defaultAccountId === undefined ? undefined : directory.ownedInbox(caller.personId, caller.defaultAccountId);
  if (fromConsent) return fromConsent;
  const inboxes = directory.inboxesOf(caller.personId);
  const [only] = inboxes;
  if (inboxes.length === 1 && only) return only;
  if (inboxes.length === 0)
    throw new HostedToolError(
      'no_inbox',
      'This account owns no inbox yet.',
      'Ask the person to authorize again and create an inbox on the consent page.',
    );
  throw new HostedToolError(
    'choose_inbox',
    `This account has ${inboxes.length} inboxes and the connection has no default inbox, so the call needs agent_id.`,
    'Call list_agents, then call this tool again with agent_id set to the accountId of the inbox to use.',
    { tool: 'list_agents' },
  );
}

/** Refuses a call whose grant lacks `scope` (a read-only grant cannot send, spec §4.2 rule 7). */
export function requireScope(caller: HostedCaller, scope: OAuthScope, what: string): void {
  if (caller.scopes.includes(scope)) return;
  throw new HostedToolError(
    'insufficient_scope',
    `${what} needs the ${scope} scope, and this connection was granted only ${caller.scopes.join(' ') || 'no scope'} (insufficient_scope).`,
    `Only the person who connected the account can grant ${scope}, by authorizing this application again with it; until then, read only.`,
  );
}
