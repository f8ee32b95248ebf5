import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../auth/auth-http.js';
import { checkClientMetadata } from './client-metadata.js';
import { readCappedText } from '../form-body.js';
import { OAuthFailure } from '../oauth-failure.js';
import type { OAuthHostContext } from '../oauth-host-context.js';

const maxRegistrationBytes = 16 * 1024;

/**
 * POST /oauth/register (RFC 7591): open registration, limited per remote address (spec §5.2).
 * Public clients (token_endpoint_auth_method none) get no secret; confidential ones get a
 * client_secret once, for client_secret_post.
 */
export async function handleRegister(ctx: OAuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const decision = ctx.registrationLimiter?.take(req.socket.remoteAddress ?? 'unknown') ?? { allowed: true };
  if (!decision.allowed) {
    req.resume();
    const wait = decision.retryAfterSeconds;
    throw new OAuthFailure(
      429,
      'rate_limited',
      `Too many client registrations from this address; wait ${wait} seconds (Retry-After) and register once per installation, not per run.`,
      { 'retry-after': String(wait) },
    );
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    throw new OAuthFailure(
      400,
      'invalid_client_metadata',
      'Send the client metadata as a JSON object with content-type application/json (RFC 7591 section 3.1).',
    );
  }
  const text = await readCappedText(req, maxRegistrationBytes);
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    throw new OAuthFailure(400, 'invalid_client_metadata', 'The body is not valid JSON.');
  }
  const verdict = checkClientMetadata(metadata, ['none', 'client_secret_post'], 'client_secret_post');
  if (!verdict.ok) throw new OAuthFailure(400, verdict.error, verdict.description);
  const issuedAt = Math.floor(ctx.now() / 1000);
  const { client, secret } = await ctx.clients.register(verdict.fields, issuedAt);
  ctx.log(
    `sandbox oauth: registered client ${client.clientId}${client.clientName === undefined ? '' : ` ${JSON.stringify(client.clientName.slice(0, 60))}`}`,
  );
  sendJson(res, 201, {
    client_id: client.clientId,
    client_id_issued_at: issuedAt,
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    ...verdict.registered,
  });
}
