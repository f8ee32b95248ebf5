import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../auth/auth-http.js';
import { AccessTokenError, bearerTokenOf, type AccessClaims } from '../grants/access-tokens.js';
import type { InboxRecord } from './account-directory.js';
import { bearerChallenge, invalidToken, OAuthFailure } from '../oauth-failure.js';
import type { OAuthHostContext } from '../oauth-host-context.js';

/** Verifies the request's access token for resources `isAccepted` allows; 401 with a challenge otherwise. */
export async function requireAccessToken(
  ctx: OAuthHostContext,
  req: IncomingMessage,
  isAccepted: (audience: string) => boolean,
): Promise<AccessClaims> {
  const token = bearerTokenOf(req);
  if (token === undefined) {
    throw new OAuthFailure(
      401,
      'invalid_token',
      'No access token was sent; send Authorization: Bearer <access_token>.',
      { 'www-authenticate': bearerChallenge() },
    );
  }
  try {
    return await ctx.tokens.verify(token, isAccepted);
  } catch (error) {
    if (error instanceof AccessTokenError) throw invalidToken(error.message);
    throw error;
  }
}

/** An entry of the inbox list (spec §2.1). */
export function agentEntry(inbox: InboxRecord, domain: string): Record<string, unknown> {
  const at = inbox.address.lastIndexOf('@');
  // On the service's own domain the inbox id is the local name; on a custom domain the full
  // address, which a client then uses as it is (spec §1 fact 4a).
  const inboxId = inbox.address.slice(at + 1) === domain ? inbox.address.slice(0, at) : inbox.address;
  return {
    accountId: inbox.accountId,
    inboxId,
    status: 'active',
    reputation: 0,
    linkedAt: inbox.linkedAt ?? inbox.createdAt,
    activatedAt: inbox.createdAt,
  };
}

/** GET /api/v1/agents (spec §4.1, §2.1): the inboxes of the token's person, for JMAP- or MCP-audience tokens. */
export async function handleAgents(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  req.resume();
  const claims = await requireAccessToken(
    ctx,
    req,
    (audience) => audience === ctx.resources.jmap() || audience === ctx.resources.mcp(),
  );
  const agents = ctx.directory.inboxesOf(claims.personId).map((inbox) => agentEntry(inbox, ctx.domain));
  const next =
    agents.length === 0
      ? ['This account owns no inbox yet: authorize again and create one on the consent page.']
      : [
          `Send X-Service-Account-Id: <accountId> with this access token on every request to ${ctx.resources.jmap()}.`,
          ...(claims.grant.defaultAccountId === undefined
            ? []
            : [`The inbox chosen at consent is ${claims.grant.defaultAccountId}.`]),
        ];
  sendJson(res, 200, { agents, _next: next });
}
