import { createHash } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { AccountRecord } from '../../auth/account-store.js';
import type { AccountDirectory, InboxRecord } from '../../oauth/accounts/account-directory.js';
import { AccessTokenError, type AccessClaims } from '../../oauth/grants/access-tokens.js';
import { oauthScopes, type OAuthScope } from '../../oauth/oauth-scopes.js';
import type { CallerCredential } from './caller-credential.js';

/** Who is calling, as the endpoint verified it on this very request. */
export type HostedCaller =
  | {
      kind: 'oauth';
      personId: string;
      clientId: string;
      grantId: string;
      scopes: OAuthScope[];
      /** The inbox chosen at consent (spec §4.4: the default of `agent_id`). */
      defaultAccountId: string | undefined;
      /** What a transport session is bound to: the grant, which a refresh keeps. */
      bindingKey: string;
    }
  | {
      kind: 'api_key';
      /** The one inbox the key opens, with full access (spec §5 item 8). */
      inbox: InboxRecord;
      scopes: OAuthScope[];
      bindingKey: string;
    };

/** A refused credential: 401 with a challenge, or 400 for a request that is malformed. */
export class CallerRefusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403,
    readonly code: string,
    readonly description: string,
  ) {
    super(description);
    this.name = 'CallerRefusal';
  }
}

/** What the endpoint needs to check a credential. */
export interface CallerCheckDeps {
  verifyAccessToken(token: string, isAccepted: (audience: string) => boolean): Promise<AccessClaims>;
  /** `{mcp_url}/mcp`: the only audience accepted here. */
  resource(): string;
  findByApiKey(apiKey: string): AccountRecord | undefined;
  directory: AccountDirectory;
}

/**
 * Verifies a credential on every request: an access token's signature, issuer, audience, expiry
 * and grant (a token for the JMAP resource is refused), or an apiKey by its hash.
 */
export async function verifyCaller(deps: CallerCheckDeps, credential: CallerCredential): Promise<HostedCaller> {
  switch (credential.kind) {
    case 'none':
      throw new CallerRefusal(
        401,
        'invalid_token',
        'No credential was sent: authorize with OAuth (the WWW-Authenticate header names the metadata) or send the inbox apiKey.',
      );
    case 'malformed':
      throw new CallerRefusal(400, 'invalid_request', credential.problem);
    case 'access_token':
      return verifyAccessToken(deps, credential.token);
    case 'api_key':
      return verifyApiKey(deps, credential.apiKey);
  }
}

async function verifyAccessToken(deps: CallerCheckDeps, token: string): Promise<HostedCaller> {
  let claims: AccessClaims;
  try {
    claims = await deps.verifyAccessToken(token, (audience) => audience === deps.resource());
  } catch (error) {
    if (error instanceof AccessTokenError) throw new CallerRefusal(401, 'invalid_token', error.message);
    throw error;
  }
  return {
    kind: 'oauth',
    personId: claims.personId,
    clientId: claims.clientId,
    grantId: claims.grantId,
    scopes: claims.scopes,
    defaultAccountId: claims.grant.defaultAccountId,
    bindingKey: `grant:${claims.grantId}`,
  };
}

async function verifyApiKey(deps: CallerCheckDeps, apiKey: string): Promise<HostedCaller> {
  const account = deps.findByApiKey(apiKey);
  if (!account)
    throw new CallerRefusal(
      401,
      'invalid_token',
      'This apiKey opens no inbox of this service; check the key, or authorize with OAuth instead.',
    );
  // An inbox kept from before the directory existed gets its accountId now.
  const inbox = deps.directory.inboxAt(account.address) ?? (await deps.directory.addInbox(account.address));
  const keyHash = createHash('sha256').update(apiKey, 'utf8').digest('hex');
  return { kind: 'api_key', inbox, scopes: [...oauthScopes], bindingKey: `key:${keyHash}` };
}

/** Callers the endpoint verified: the only ones a tool call accepts from the transport's auth info. */
const verifiedCallers = new WeakSet<HostedCaller>();

/**
 * The auth info handed to the MCP transport with a request. It carries the verified caller, not
 * the credential: the token or apiKey stays at the endpoint.
 */
export function authInfoFor(caller: HostedCaller, resource: string): AuthInfo {
  verifiedCallers.add(caller);
  return {
    token: '',
    clientId: caller.kind === 'oauth' ? caller.clientId : 'api-key',
    scopes: [...caller.scopes],
    resource: new URL(resource),
    extra: { caller },
  };
}

/** The caller of a tool call, when the endpoint verified it on this request. */
export function callerOf(authInfo: { extra?: Record<string, unknown> } | undefined): HostedCaller | undefined {
  const caller = authInfo?.extra?.['caller'];
  return typeof caller === 'object' && caller !== null && verifiedCallers.has(caller as HostedCaller)
    ? (caller as HostedCaller)
    : undefined;
}
