import { decodeJwt } from 'jose/jwt/decode';
import * as z from 'zod';
import { MailboxError, settingRef } from '../errors.js';
import { rememberSecret } from '../redact.js';
import type { HttpResponse } from './http-types.js';

/** Reads the token of an `Authorization: Bearer <jwt>` RESPONSE header (spec §2.5); scheme case-insensitive. */
export function readBearerToken(response: Pick<HttpResponse, 'headers'>, where: string): string {
  const header = response.headers.get('authorization') ?? '';
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1])
    throw new MailboxError({
      code: 'bad_response',
      message: `${where} answered without an "Authorization: Bearer" token header.`,
      hint: `Check that ${settingRef('authUrl')} points at the Agent Mailbox auth host; retry later if it does.`,
    });
  // Every token this process receives becomes known to the redactor before anything can echo it.
  rememberSecret(match[1]);
  return match[1];
}

/** Claims of the challenge JWT the client uses (spec §2.5). */
export const challengeClaims = z.looseObject({
  jti: z.string().min(1),
  difficulty: z.number().int().min(0),
  exp: z.number().optional(),
});

/** Claims every session and capability JWT carries (`exp` always, reference/live-service.md). */
export const tokenClaims = z.looseObject({
  exp: z.number(),
  iat: z.number().optional(),
  inboxId: z.string().optional(),
});

/** Decodes a JWT payload WITHOUT verifying it (the client cannot; the server verifies) and validates it. */
export function decodeJwtClaims<T extends z.ZodType>(token: string, schema: T, what: string): z.infer<T> {
  const hint = `Check that ${settingRef('authUrl')} points at the Agent Mailbox auth host; retry later if it does.`;
  let payload: unknown;
  try {
    payload = decodeJwt(token);
  } catch (error) {
    throw new MailboxError({ code: 'bad_response', message: `The ${what} is not a readable JWT.`, hint, cause: error });
  }
  const parsed = schema.safeParse(payload);
  if (!parsed.success)
    throw new MailboxError({
      code: 'bad_response',
      message: `The ${what} lacks expected claims: ${parsed.error.issues.map((i) => i.path.join('.') || i.message).join(', ')}.`,
      hint,
    });
  return parsed.data;
}
