import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { connect } from './oauth-test-client.js';

const sandbox = await startTestSandbox({ oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }] } });

describe('authorization server metadata (spec §2.3, RFC 8414)', () => {
  it('serves exactly the fields of spec §2.3, every address on the auth host', async () => {
    const response = await fetch(sandbox.oauth.metadataUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const issuer = sandbox.authUrl;
    expect(await response.json()).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      registration_endpoint: `${issuer}/oauth/register`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      scopes_supported: ['mail.read', 'mail.send'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      token_profiles_supported: ['at+jwt'],
    });
    expect(sandbox.oauth.metadataUrl).toBe(`${issuer}/.well-known/oauth-authorization-server`);
  });

  it('answers on every endpoint it advertises (none is a 404)', async () => {
    const metadata = (await (await fetch(sandbox.oauth.metadataUrl)).json()) as Record<string, string>;
    const calls: Array<[string, RequestInit]> = [
      [metadata['authorization_endpoint'] ?? '', {}],
      [
        metadata['token_endpoint'] ?? '',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=refresh_token',
        },
      ],
      [
        metadata['revocation_endpoint'] ?? '',
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=x' },
      ],
      [
        metadata['registration_endpoint'] ?? '',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      ],
      [metadata['jwks_uri'] ?? '', {}],
    ];
    for (const [url, init] of calls) {
      expect(url.startsWith(sandbox.authUrl)).toBe(true);
      const response = await fetch(url, { ...init, redirect: 'manual' });
      await response.arrayBuffer();
      expect([200, 400], `${init.method ?? 'GET'} ${url}`).toContain(response.status);
    }
  });

  it('publishes an Ed25519 key in the JWKS that verifies its access tokens offline, with typ at+jwt', async () => {
    const { tokens } = await connect(sandbox);
    const jwks = (await (await fetch(`${sandbox.authUrl}/.well-known/jwks.json`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    const header = decodeProtectedHeader(tokens.access_token);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(jwks.keys.find((key) => key['kid'] === header.kid)).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      alg: 'EdDSA',
      use: 'sig',
    });
    expect(jwks.keys.every((key) => key['d'] === undefined)).toBe(true);
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks as never), {
      issuer: sandbox.authUrl,
      audience: sandbox.oauth.jmapResource,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({
      scope: 'mail.read mail.send',
      client_id: expect.any(String),
      sub: sandbox.oauth.autoApproved[0]?.personId,
      grant_id: expect.any(String),
    });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(900);
    expect(tokens.expires_in).toBe(900);
  });
});
