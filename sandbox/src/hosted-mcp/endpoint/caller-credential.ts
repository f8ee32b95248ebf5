import type { IncomingHttpHeaders } from 'node:http';
import { looksLikeAccessToken } from '../../oauth/grants/access-tokens.js';

/** What a request to the hosted MCP server presented (spec §5 item 8). */
export type CallerCredential =
  | { kind: 'none' }
  | { kind: 'access_token'; token: string }
  | { kind: 'api_key'; apiKey: string }
  /** Something was sent that is none of the accepted forms, or two credentials that disagree. */
  | { kind: 'malformed'; problem: string };

/**
 * Reads the credential of a request: an OAuth access token (`Authorization: Bearer`, a JWT of type
 * at+jwt), or an inbox apiKey as `Authorization: Bearer <key>`, `Authorization: ApiKey <key>` or
 * `X-API-Key: <key>`. An apiKey in two places must be the same key; a token and a key together are
 * refused rather than one silently chosen.
 */
export function callerCredentialOf(headers: IncomingHttpHeaders): CallerCredential {
  const authorization = headers.authorization;
  const headerKey = headers['x-api-key'];
  if (Array.isArray(headerKey)) return { kind: 'malformed', problem: 'X-API-Key was sent more than once.' };
  const xApiKey = headerKey?.trim();
  if (xApiKey !== undefined && !isTokenText(xApiKey))
    return { kind: 'malformed', problem: 'X-API-Key is empty or holds spaces; send exactly the inbox apiKey.' };

  let fromAuthorization: CallerCredential = { kind: 'none' };
  if (authorization !== undefined && authorization.trim() !== '') {
    const match = /^\s*(bearer|apikey)\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1] || !match[2])
      return {
        kind: 'malformed',
        problem: 'The Authorization header is neither "Bearer <token or apiKey>" nor "ApiKey <apiKey>".',
      };
    const value = match[2];
    fromAuthorization =
      match[1].toLowerCase() === 'bearer' && looksLikeAccessToken(value)
        ? { kind: 'access_token', token: value }
        : { kind: 'api_key', apiKey: value };
  }
  if (xApiKey === undefined) return fromAuthorization;
  if (fromAuthorization.kind === 'none') return { kind: 'api_key', apiKey: xApiKey };
  if (fromAuthorization.kind === 'api_key' && fromAuthorization.apiKey === xApiKey) return fromAuthorization;
  return {
    kind: 'malformed',
    problem: 'The request carries two different credentials (Authorization and X-API-Key); send one.',
  };
}

function isTokenText(value: string): boolean {
  return /^\S+$/.test(value);
}
