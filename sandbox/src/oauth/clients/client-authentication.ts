import type { IncomingMessage } from 'node:http';
import { isClientIdUrl } from './client-metadata-documents.js';
import { isClientSecret, type ClientRecord } from './client-registry.js';
import { requiredParam, singleParam } from '../form-body.js';
import { OAuthFailure } from '../oauth-failure.js';
import type { OAuthHostContext } from '../oauth-host-context.js';

/** The client a token or revocation request comes from: its record, or a metadata-document URL (a public client). */
export type AuthenticatedClient = { clientId: string; client?: ClientRecord };

/**
 * Authenticates the client of a token or revocation request: `none` (client_id alone) or
 * client_secret_post (spec §5.1). client_secret_basic is not offered (metadata §2.3); a request
 * that tries it gets 401 with a Basic challenge, as RFC 6749 §5.2 requires.
 */
export function authenticateClient(
  ctx: OAuthHostContext,
  req: IncomingMessage,
  form: URLSearchParams,
): AuthenticatedClient {
  if (/^\s*basic\s/i.test(req.headers.authorization ?? '')) {
    throw new OAuthFailure(
      401,
      'invalid_client',
      'HTTP Basic client authentication is not supported; send client_id and client_secret in the form body (client_secret_post).',
      { 'www-authenticate': 'Basic realm="agent-mailbox"' },
    );
  }
  const clientId = requiredParam(form, 'client_id', 'every token and revocation request names its client');
  const secret = singleParam(form, 'client_secret');
  // A metadata-document client has no secret; what it may do is bound to its code or grant.
  if (isClientIdUrl(clientId)) {
    if (secret !== undefined)
      throw new OAuthFailure(
        400,
        'invalid_client',
        'A client identified by a metadata document URL has no client_secret; leave it out.',
      );
    return { clientId };
  }
  const client = ctx.clients.get(clientId);
  if (!client)
    throw new OAuthFailure(
      400,
      'invalid_client',
      'Unknown client_id; register the client with POST /oauth/register first.',
    );
  if (client.authMethod === 'client_secret_post') {
    if (secret === undefined || !isClientSecret(client, secret))
      throw new OAuthFailure(400, 'invalid_client', 'The client_secret is missing or wrong for this client.');
  } else if (secret !== undefined) {
    throw new OAuthFailure(
      400,
      'invalid_client',
      'This client registered as public (token_endpoint_auth_method none) and has no client_secret; leave it out.',
    );
  }
  return { clientId, client };
}
