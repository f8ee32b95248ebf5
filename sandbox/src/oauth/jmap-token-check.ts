import { IncomingMessage, type ServerResponse } from 'node:http';
import { AuthFailure, sendFailure } from '../auth/auth-http.js';
import { AccessTokenError, bearerTokenOf, looksLikeAccessToken, type AccessClaims } from './grants/access-tokens.js';
import type { AccountDirectory } from './accounts/account-directory.js';
import { readCappedBody } from './form-body.js';
import { jmapRequestKind, missingScopeOf, scopeForRequest } from './jmap-scope-rule.js';
import { bearerChallenge, invalidToken, OAuthFailure, sendOAuthFailure } from './oauth-failure.js';
import { oauthScopes, type OAuthScope } from './oauth-scopes.js';
import { accountIdPattern, inboxResourcePrefix } from './resource-indicators.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface JmapTokenCheckOptions {
  verifyAccessToken(token: string, isAccepted: (audience: string) => boolean): Promise<AccessClaims>;
  directory: AccountDirectory;
  /** `{api_url}/jmap`, the only resource besides one inbox's URN whose tokens this host takes. */
  jmapResource(): string;
  /** A capability JWT for an inbox, the same the proof-of-work path mints: what the mail store checks. */
  mintCapability(address: string): Promise<string>;
}

/** The header that selects the inbox on the OAuth path (spec §4.2). */
export const serviceAccountHeader = 'x-service-account-id';

// The mail stores refuse JMAP requests over 10 MiB (maxSizeRequest); the gate reads no more.
const maxInspectedBytes = 10 * 1024 * 1024;

/**
 * The JMAP host's check of OAuth access tokens (spec §4.2 rules 1–7), in front of either mail
 * store. A request with an access token (typ at+jwt) is checked here — token, X-Service-Account-Id,
 * ownership, scope — and then goes on with a two-minute capability JWT for the chosen inbox in
 * place of the token (rule 6: the service mints it; the client never sees it). Every other request
 * (the proof-of-work path's capability JWTs) passes untouched.
 */
export function guardJmapWithOAuth(options: JmapTokenCheckOptions, next: Handler): Handler {
  const admit = async (req: IncomingMessage, res: ServerResponse, token: string): Promise<void> => {
    const claims = await verify(token);
    const accountId = req.headers[serviceAccountHeader];
    if (typeof accountId !== 'string' || !accountIdPattern.test(accountId)) {
      req.resume();
      throw new AuthFailure(
        400,
        typeof accountId === 'string'
          ? 'X-Service-Account-Id is not an accountId (a lowercase UUID).'
          : 'X-Service-Account-Id is missing; an OAuth access token does not choose an inbox by itself.',
        'Send X-Service-Account-Id: <accountId> with every request, taking the accountId from GET /api/v1/agents on the auth host.',
      );
    }
    const inbox = options.directory.ownedInbox(claims.personId, accountId);
    const isBoundElsewhere =
      claims.audience.startsWith(inboxResourcePrefix) && claims.audience !== `${inboxResourcePrefix}${accountId}`;
    if (!inbox || isBoundElsewhere) {
      req.resume();
      throw accessDenied(
        isBoundElsewhere
          ? 'This access token is bound to another inbox.'
          : `The inbox ${accountId} is not one of this account's inboxes; GET /api/v1/agents lists them.`,
      );
    }
    const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
    const kind = jmapRequestKind(req.method ?? 'GET', path);
    const needed = scopeForRequest(kind);
    if (needed && !claims.scopes.includes(needed)) {
      req.resume();
      throw insufficientScope(needed, `Reading mail needs the ${needed} scope, which this grant does not have.`);
    }
    let forwarded = req;
    if (kind === 'api' && !oauthScopes.every((scope) => claims.scopes.includes(scope))) {
      const body = await readCappedBody(req, maxInspectedBytes);
      const shortfall = missingScopeOf(parseOrUndefined(body), claims.scopes);
      if (shortfall)
        throw insufficientScope(
          shortfall.scope,
          `${shortfall.method} needs the ${shortfall.scope} scope, which this grant does not have; the person who connected the account can grant it by authorizing again with ${shortfall.scope}.`,
        );
      forwarded = replayOf(req, body);
    }
    forwarded.headers.authorization = `Bearer ${await options.mintCapability(inbox.address)}`;
    delete forwarded.headers[serviceAccountHeader];
    next(forwarded, res);
  };

  async function verify(token: string): Promise<AccessClaims> {
    try {
      return await options.verifyAccessToken(
        token,
        (audience) => audience === options.jmapResource() || audience.startsWith(inboxResourcePrefix),
      );
    } catch (error) {
      if (error instanceof AccessTokenError) throw invalidToken(error.message);
      throw error;
    }
  }

  return (req, res) => {
    const token = bearerTokenOf(req);
    if (token === undefined || !looksLikeAccessToken(token)) return next(req, res);
    admit(req, res, token).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      req.resume();
      if (error instanceof OAuthFailure) return sendOAuthFailure(res, error);
      if (error instanceof AuthFailure) return sendFailure(res, error);
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  };
}

function accessDenied(description: string): OAuthFailure {
  return new OAuthFailure(403, 'access_denied', description, {
    'www-authenticate': bearerChallenge({ code: 'access_denied', description }),
  });
}

function insufficientScope(scope: OAuthScope, description: string): OAuthFailure {
  return new OAuthFailure(403, 'insufficient_scope', description, {
    'www-authenticate': bearerChallenge({ code: 'insufficient_scope', description, scope }),
  });
}

function parseOrUndefined(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The request again, its body read once for the scope check and now replayed unchanged (spec §4.2
 * rule 5: the body passes through unmodified) to the mail store, which reads it as it would the
 * original.
 */
function replayOf(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method ?? 'POST';
  copy.url = req.url ?? '/';
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  const { 'transfer-encoding': _chunked, ...headers } = req.headers;
  copy.headers = { ...headers, 'content-length': String(body.length) };
  // Marked complete, or destroying the finished copy would count as an aborted request and close the socket.
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}
