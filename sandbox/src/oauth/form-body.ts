import type { IncomingMessage } from 'node:http';
import { OAuthFailure } from './oauth-failure.js';

// Token, revocation and consent forms are a few short fields; anything near this is not a client.
const maxFormBytes = 16 * 1024;

/**
 * Reads an application/x-www-form-urlencoded body (RFC 6749 §3.2: the token endpoint takes no
 * other). Larger bodies and other media types are refused with invalid_request.
 */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    req.resume();
    throw new OAuthFailure(
      400,
      'invalid_request',
      'The body must be application/x-www-form-urlencoded (RFC 6749 section 3.2); send the parameters as a form, not JSON.',
    );
  }
  return new URLSearchParams(await readCappedText(req, maxFormBytes));
}

/** The body as UTF-8 text, refused with 413 past `limit` bytes. */
export async function readCappedText(req: IncomingMessage, limit: number): Promise<string> {
  return (await readCappedBody(req, limit)).toString('utf8');
}

/**
 * The body's bytes, refused with 413 past `limit` bytes. Past the limit nothing more is kept, but
 * the rest is drained, so the connection stays usable for the answer.
 */
export function readCappedBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = (): OAuthFailure =>
    new OAuthFailure(413, 'invalid_request', `The request body is larger than ${limit} bytes.`);
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? '0') > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => (size > limit ? reject(tooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/**
 * One parameter of a form or query, refusing repeats (RFC 6749 §3.1: a parameter MUST NOT be
 * included more than once). Empty values count as absent (RFC 6749 §3.1).
 */
export function singleParam(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1)
    throw new OAuthFailure(
      400,
      'invalid_request',
      `The parameter ${name} is given ${values.length} times; send it once.`,
    );
  const value = values[0];
  return value === undefined || value === '' ? undefined : value;
}

/** Like singleParam, for a parameter the request cannot do without. */
export function requiredParam(params: URLSearchParams, name: string, why = ''): string {
  const value = singleParam(params, name);
  if (value === undefined)
    throw new OAuthFailure(400, 'invalid_request', `The parameter ${name} is missing${why ? `: ${why}` : ''}.`);
  return value;
}
