import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateClient } from '../clients/client-authentication.js';
import { readForm, requiredParam } from '../form-body.js';
import type { GrantRecord } from './grant-store.js';
import type { OAuthHostContext } from '../oauth-host-context.js';

/**
 * POST /oauth/revoke (RFC 7009, spec §3): an access or refresh token ends its whole grant. The
 * answer is 200 for any token, known or not, so it tells nobody which tokens exist; a token of
 * another client is left alone (RFC 7009 §2.1).
 */
export async function handleRevoke(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const client = authenticateClient(ctx, req, form);
  const token = requiredParam(form, 'token');
  const grant: GrantRecord | undefined = ctx.grants.lookupRefresh(token)?.grant ?? (await ctx.tokens.grantOf(token));
  if (grant && grant.clientId === client.clientId) await ctx.grants.revoke(grant, 'revoked by the client', ctx.now());
  res.writeHead(200, { 'cache-control': 'no-store', 'content-length': '0' });
  res.end();
}
