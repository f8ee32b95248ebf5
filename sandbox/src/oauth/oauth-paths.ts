import { pagePaths } from './browser/consent-pages.js';

/** The OAuth endpoints of the auth host (spec §4.1), besides the browser pages. */
export const oauthPaths = {
  metadata: '/.well-known/oauth-authorization-server',
  jwks: '/.well-known/jwks.json',
  authorize: pagePaths.authorize,
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  register: '/oauth/register',
  agents: '/api/v1/agents',
} as const;

/** Authorization server metadata exactly as spec §2.3 lists it (RFC 8414). */
export function serverMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}${oauthPaths.authorize}`,
    token_endpoint: `${issuer}${oauthPaths.token}`,
    revocation_endpoint: `${issuer}${oauthPaths.revoke}`,
    registration_endpoint: `${issuer}${oauthPaths.register}`,
    jwks_uri: `${issuer}${oauthPaths.jwks}`,
    scopes_supported: ['mail.read', 'mail.send'],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    token_profiles_supported: ['at+jwt'],
  };
}
