import { z } from 'zod';
import { clientGrantTypes, type ClientAuthMethod, type ClientGrantType, type ClientRecord } from './client-registry.js';
import { parseScopeParameter } from '../oauth-scopes.js';
import { redirectUriProblem } from './redirect-uri-rules.js';

const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`).optional();

/**
 * Client metadata (RFC 7591 §2) as registration and client metadata documents carry it. Unknown
 * fields are ignored (RFC 7591 §2: the server MUST ignore metadata it does not understand).
 */
const clientMetadataSchema = z.looseObject({
  redirect_uris: z
    .array(z.string(), { error: 'redirect_uris must be an array of strings' })
    .min(1, 'redirect_uris needs at least one URI')
    .max(10, 'redirect_uris may list at most 10 URIs'),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).max(10).optional(),
  response_types: z.array(z.string()).max(10).optional(),
  scope: optionalText(200),
  client_name: optionalText(200),
  client_uri: optionalText(2000),
  logo_uri: optionalText(2000),
  tos_uri: optionalText(2000),
  policy_uri: optionalText(2000),
  contacts: z.array(z.string().max(320)).max(10).optional(),
  software_id: optionalText(200),
  software_version: optionalText(200),
});

/** What a client's metadata amounts to, or the RFC 7591 §3.2.2 error that refuses it. */
export type ClientMetadataVerdict =
  | {
      ok: true;
      fields: Omit<ClientRecord, 'clientId' | 'secretHash' | 'issuedAt'>;
      registered: Record<string, unknown>;
    }
  | { ok: false; error: 'invalid_redirect_uri' | 'invalid_client_metadata'; description: string };

/**
 * Validates client metadata. `allowedAuthMethods` narrows the methods (a metadata document's
 * client has no secret); `defaultAuthMethod` applies when the field is absent (RFC 7591 names
 * client_secret_basic, which this server does not offer, so it substitutes its own, §3.2.1).
 */
export function checkClientMetadata(
  raw: unknown,
  allowedAuthMethods: readonly ClientAuthMethod[],
  defaultAuthMethod: ClientAuthMethod,
): ClientMetadataVerdict {
  const parsed = clientMetadataSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'the metadata';
    const error = issue?.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    return { ok: false, error, description: `${where}: ${issue?.message ?? 'invalid'}` };
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem)
      return {
        ok: false,
        error: 'invalid_redirect_uri',
        description: `The redirect URI ${uri.slice(0, 200)} ${problem}.`,
      };
  }
  const authMethod = metadata.token_endpoint_auth_method ?? defaultAuthMethod;
  if (!(allowedAuthMethods as readonly string[]).includes(authMethod)) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: `token_endpoint_auth_method ${authMethod.slice(0, 40)} is not supported; use ${allowedAuthMethods.join(' or ')}.`,
    };
  }
  const grantTypes = metadata.grant_types ?? [...clientGrantTypes];
  const unknownGrant = grantTypes.find((grant) => !(clientGrantTypes as readonly string[]).includes(grant));
  if (unknownGrant !== undefined || !grantTypes.includes('authorization_code')) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: `grant_types must include authorization_code and may add refresh_token${unknownGrant === undefined ? '' : `; ${unknownGrant.slice(0, 40)} is not supported`}.`,
    };
  }
  if (metadata.response_types !== undefined && metadata.response_types.some((type) => type !== 'code')) {
    return { ok: false, error: 'invalid_client_metadata', description: 'response_types may only be ["code"].' };
  }
  const scope = metadata.scope === undefined ? undefined : parseScopeParameter(metadata.scope);
  if (scope && 'unknown' in scope)
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: `scope names unknown scopes: ${scope.unknown.join(' ').slice(0, 100)}; the scopes are mail.read and mail.send.`,
    };
  for (const field of ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const) {
    const value = metadata[field];
    if (value !== undefined && !/^https?:\/\//.test(value))
      return { ok: false, error: 'invalid_client_metadata', description: `${field} must be an http or https URL.` };
  }
  const fields = {
    authMethod: authMethod as ClientAuthMethod,
    redirectUris: [...metadata.redirect_uris],
    grantTypes: [...new Set(grantTypes)] as ClientGrantType[],
    ...(scope && 'scopes' in scope ? { scopes: scope.scopes } : {}),
    ...(metadata.client_name === undefined ? {} : { clientName: metadata.client_name }),
    ...(metadata.client_uri === undefined ? {} : { clientUri: metadata.client_uri }),
  };
  const registered: Record<string, unknown> = {
    redirect_uris: fields.redirectUris,
    token_endpoint_auth_method: fields.authMethod,
    grant_types: fields.grantTypes,
    response_types: ['code'],
  };
  for (const field of [
    'scope',
    'client_name',
    'client_uri',
    'logo_uri',
    'tos_uri',
    'policy_uri',
    'contacts',
    'software_id',
    'software_version',
  ] as const) {
    if (metadata[field] !== undefined) registered[field] = metadata[field];
  }
  return { ok: true, fields, registered };
}
