import { bearerRealm } from '../../oauth/oauth-failure.js';
import { oauthScopes } from '../../oauth/oauth-scopes.js';

/** Path of the MCP endpoint on `{mcp_url}` (spec §1, §4.4). */
export const mcpPath = '/mcp';

/** Path of the protected-resource metadata for `{mcp_url}/mcp` (RFC 9728 §3.1: the well-known prefix goes before the resource's path). */
export const protectedResourcePath = `/.well-known/oauth-protected-resource${mcpPath}`;

/** The identifiers of the hosted MCP server, from its public `{mcp_url}`. */
export interface HostedResource {
  /** `{mcp_url}/mcp`: the resource indicator and every access token's `aud`. */
  resource: string;
  /** `{mcp_url}/.well-known/oauth-protected-resource/mcp`. */
  metadataUrl: string;
}

/** The resource and metadata URL of a `{mcp_url}` (a trailing slash is not part of it). */
export function hostedResourceOf(mcpUrl: string): HostedResource {
  const base = mcpUrl.replace(/\/+$/, '');
  const origin = new URL(base);
  // RFC 9728 §3.1: insert the well-known segment between the host and the resource's path.
  return {
    resource: `${base}${mcpPath}`,
    metadataUrl: `${origin.origin}/.well-known/oauth-protected-resource${origin.pathname.replace(/\/+$/, '')}${mcpPath}`,
  };
}

/** The metadata document exactly as spec §2.4 lists it. */
export function protectedResourceMetadata(resource: HostedResource, authUrl: string): Record<string, unknown> {
  return {
    resource: resource.resource,
    authorization_servers: [authUrl],
    scopes_supported: [...oauthScopes],
    bearer_methods_supported: ['header'],
  };
}

/**
 * A `WWW-Authenticate: Bearer` challenge pointing at the metadata (RFC 9728 §5.1), so a client
 * finds the authorization server by itself; with an error code once a credential was sent and
 * refused (RFC 6750 §3.1).
 */
export function resourceChallenge(metadataUrl: string, error?: { code: string; description: string }): string {
  const parts = [`realm="${bearerRealm}"`, `resource_metadata="${metadataUrl}"`];
  if (error)
    parts.push(
      `error="${error.code}"`,
      `error_description="${error.description.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?')}"`,
    );
  return `Bearer ${parts.join(', ')}`;
}
