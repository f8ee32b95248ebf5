import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../auth/auth-http.js';
import { isPkceMatch } from './authorization-codes.js';
import { authenticateClient, type AuthenticatedClient } from '../clients/client-authentication.js';
import { readForm, requiredParam, singleParam } from '../form-body.js';
import type { GrantRecord } from './grant-store.js';
import { OAuthFailure } from '../oauth-failure.js';
import type { OAuthHostContext } from '../oauth-host-context.js';
import { formatScope, parseScopeParameter, type OAuthScope } from '../oauth-scopes.js';

/** POST /oauth/token (spec §4.1, §2.2): the authorization_code and refresh_token grants. */
export async function handleToken(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const grantType = requiredParam(form, 'grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthFailure(
      400,
      'unsupported_grant_type',
      `grant_type ${grantType.slice(0, 40)} is not supported; use authorization_code or refresh_token.`,
    );
  }
  const client = authenticateClient(ctx, req, form);
  const issued =
    grantType === 'authorization_code' ? await exchangeCode(ctx, client, form) : await refresh(ctx, client, form);
  const accessToken = await ctx.tokens.issue(issued.grant, issued.scopes);
  sendJson(
    res,
    200,
    {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ctx.tokens.lifetimeSeconds,
      ...(issued.refreshToken === undefined ? {} : { refresh_token: issued.refreshToken }),
      scope: formatScope(issued.scopes),
    },
    { pragma: 'no-cache' },
  );
}

interface Issued {
  grant: GrantRecord;
  scopes: OAuthScope[];
  refreshToken?: string;
}

async function exchangeCode(
  ctx: OAuthHostContext,
  client: AuthenticatedClient,
  form: URLSearchParams,
): Promise<Issued> {
  const code = requiredParam(form, 'code');
  const redirectUri = requiredParam(form, 'redirect_uri', 'send the redirect_uri of the authorization request');
  const verifier = requiredParam(form, 'code_verifier', 'PKCE is required');
  const resource = singleParam(form, 'resource');
  const redemption = ctx.codes.redeem(code);
  if (redemption.kind === 'replayed') {
    // RFC 6749 §4.1.2: a code used twice may have been stolen; what it gave is taken back.
    const grant = redemption.grantId === undefined ? undefined : ctx.grants.get(redemption.grantId);
    if (grant) await ctx.grants.revoke(grant, 'authorization code reused', ctx.now());
    throw new OAuthFailure(
      400,
      'invalid_grant',
      'The authorization code was already used; every token issued with it is revoked. Authorize again.',
    );
  }
  if (redemption.kind !== 'ok')
    throw new OAuthFailure(
      400,
      'invalid_grant',
      `The authorization code is ${redemption.kind === 'expired' ? 'expired (codes live 60 seconds)' : 'not known'}; authorize again.`,
    );
  const { binding } = redemption;
  if (binding.clientId !== client.clientId)
    throw new OAuthFailure(400, 'invalid_grant', 'The authorization code was issued to another client.');
  if (binding.redirectUri !== redirectUri)
    throw new OAuthFailure(400, 'invalid_grant', 'redirect_uri differs from the one of the authorization request.');
  if (!isPkceMatch(verifier, binding.codeChallenge))
    throw new OAuthFailure(400, 'invalid_grant', 'The code_verifier does not match the code_challenge (PKCE S256).');
  if (resource !== undefined && resource !== binding.resource)
    throw new OAuthFailure(400, 'invalid_request', 'resource differs from the one of the authorization request.');
  const { grant, refreshToken } = await ctx.grants.create(
    {
      personId: binding.personId,
      clientId: binding.clientId,
      scopes: binding.scopes,
      resource: binding.resource,
      ...(binding.defaultAccountId === undefined ? {} : { defaultAccountId: binding.defaultAccountId }),
    },
    ctx.now(),
  );
  redemption.settle(grant.id);
  const mayRefresh = client.client === undefined || client.client.grantTypes.includes('refresh_token');
  return { grant, scopes: grant.scopes, ...(mayRefresh ? { refreshToken } : {}) };
}

async function refresh(ctx: OAuthHostContext, client: AuthenticatedClient, form: URLSearchParams): Promise<Issued> {
  const token = requiredParam(form, 'refresh_token');
  const scopeText = singleParam(form, 'scope');
  const resource = singleParam(form, 'resource');
  if (client.client && !client.client.grantTypes.includes('refresh_token')) {
    throw new OAuthFailure(400, 'unauthorized_client', 'This client did not register the refresh_token grant type.');
  }
  const found = ctx.grants.lookupRefresh(token);
  if (!found || found.grant.clientId !== client.clientId)
    throw new OAuthFailure(400, 'invalid_grant', 'The refresh token is not known for this client; authorize again.');
  const { grant } = found;
  if (grant.revokedAt !== undefined)
    throw new OAuthFailure(400, 'invalid_grant', 'The grant of this refresh token was revoked; authorize again.');
  if (!found.isCurrent) {
    await ctx.grants.revoke(grant, 'superseded refresh token reused', ctx.now());
    throw new OAuthFailure(
      400,
      'invalid_grant',
      'This refresh token was already exchanged for a newer one; reuse revokes the whole grant (spec section 3). Authorize again.',
    );
  }
  if (grant.refresh.expiresAt <= ctx.now())
    throw new OAuthFailure(
      400,
      'invalid_grant',
      'The refresh token expired after 90 days without use; authorize again.',
    );
  const scopes = narrowedScopes(grant, scopeText);
  if (resource !== undefined && resource !== grant.resource)
    throw new OAuthFailure(400, 'invalid_request', 'resource differs from the one this grant was given for.');
  const refreshToken = await ctx.grants.rotate(grant, ctx.now());
  return { grant, scopes, refreshToken };
}

/** RFC 6749 §6: a refresh may ask for less than the grant has, never more; absent means all of it. */
function narrowedScopes(grant: GrantRecord, scopeText: string | undefined): OAuthScope[] {
  if (scopeText === undefined) return grant.scopes;
  const parsed = parseScopeParameter(scopeText);
  if ('unknown' in parsed)
    throw new OAuthFailure(
      400,
      'invalid_scope',
      `Unknown scope ${parsed.unknown.join(' ').slice(0, 100)}; the scopes are mail.read and mail.send.`,
    );
  const beyond = parsed.scopes.filter((scope) => !grant.scopes.includes(scope));
  if (beyond.length > 0)
    throw new OAuthFailure(
      400,
      'invalid_scope',
      `The grant does not include ${beyond.join(' ')}; a refresh can only narrow the scope.`,
    );
  if (parsed.scopes.length === 0)
    throw new OAuthFailure(400, 'invalid_scope', "scope names no scope; leave it out to keep the grant's scope.");
  return parsed.scopes;
}
