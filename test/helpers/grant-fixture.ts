import type { StoredGrant } from '../../src/credentials/oauth-grant-files.js';

/** A stored grant whose authorization server is `authUrl` (token endpoint /oauth/token), connected at the start of 2026. */
export function grantFixture(authUrl: string, extra: Partial<StoredGrant> = {}): StoredGrant {
  return {
    kind: 'oauth',
    version: 1,
    server: { issuer: authUrl, token_endpoint: `${authUrl}/oauth/token` },
    apiUrl: 'http://127.0.0.1:9',
    resource: 'http://127.0.0.1:9/jmap',
    clientId: 'client-1',
    scope: 'mail.read mail.send',
    refreshToken: 'rt-0',
    generation: 1,
    rotatedAt: '2026-01-01T00:00:00.000Z',
    connectedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}
