import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { authPaths, usernameLength, usernamePattern } from '../wire-constants.js';
import type { AuthHostContext } from './auth-host-context.js';
import { AuthFailure, readJsonBody, sendJson } from './auth-http.js';
import { challengeTokenFailure } from './token-failures.js';
import { parseBearer, TokenError, type ChallengeClaims } from './token-service.js';
import { decimalNoncePattern, powHexPattern, verifyPow } from './verify-pow.js';

const expectedShape =
  '{"powHex": "<128 hex digits>", "nonce": "<decimal>", "username": "<name>"} (sign-up) or {"powHex", "nonce", "apiKey"} (login)';
const freshChallenge = `request a fresh challenge with POST ${authPaths.challenge}, solve it, and retry`;

type SessionRequest =
  | { kind: 'signup'; powHex: string; nonce: string; username: string }
  | { kind: 'login'; powHex: string; nonce: string; apiKey: string };

/** POST /api/v1/session: sign-up or login with a solved challenge (spec §2.5, §4.3). */
export async function handleSession(ctx: AuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let claims: ChallengeClaims;
  try {
    claims = await ctx.tokens.verifyChallenge(parseBearer(req.headers.authorization));
  } catch (error) {
    req.resume();
    throw error instanceof TokenError ? challengeTokenFailure(error, ctx.lifetimes.challengeSeconds) : error;
  }
  const request = parseSessionRequest(await readJsonBody(req, expectedShape));
  try {
    ctx.tokens.spendChallenge(claims);
  } catch (error) {
    throw error instanceof TokenError ? challengeTokenFailure(error, ctx.lifetimes.challengeSeconds) : error;
  }
  await checkProof(ctx, claims, request);
  if (request.kind === 'signup') await signUp(ctx, request.username, res);
  else await logIn(ctx, request.apiKey, res);
}

const sessionBodySchema = z
  .object(
    {
      powHex: z
        .string({ error: 'The field powHex is missing or not a string.' })
        .regex(powHexPattern, 'The field powHex must be the 64-byte scrypt digest as 128 hex digits.'),
      nonce: z
        .string({
          error: 'The field nonce is missing or not a string; send the nonce as a decimal string such as "42".',
        })
        .regex(decimalNoncePattern, 'The nonce is not a decimal string of at most 20 digits.'),
      username: z.string({ error: 'The field username must be a string.' }).optional(),
      apiKey: z
        .string({ error: 'The field apiKey must be a string.' })
        .min(1, 'The field apiKey must not be empty.')
        .optional(),
    },
    { error: 'The request body must be a JSON object.' },
  )
  .refine(
    (body) => body.username === undefined || body.apiKey === undefined,
    'Send either username (sign-up) or apiKey (login), not both.',
  )
  .refine(
    (body) => body.username !== undefined || body.apiKey !== undefined,
    'Neither username (sign-up) nor apiKey (login) was sent.',
  );

function parseSessionRequest(body: unknown): SessionRequest {
  const parsed = sessionBodySchema.safeParse(body);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? 'The request body is malformed.';
    throw new AuthFailure(400, message, `Send a JSON body of the form ${expectedShape}.`);
  }
  const { powHex, nonce, username, apiKey } = parsed.data;
  if (apiKey !== undefined) return { kind: 'login', powHex, nonce, apiKey };
  checkUsername(username ?? '');
  return { kind: 'signup', powHex, nonce, username: username ?? '' };
}

/** Username rule (spec §1 fact 1, wire-constants): checked before the challenge is spent. */
function checkUsername(username: string): void {
  const { min, max } = usernameLength;
  if (username.length < min || username.length > max) {
    throw new AuthFailure(
      422,
      `The username "${username.slice(0, 40)}" has ${username.length} characters; it must have ${min} to ${max}.`,
      `Choose a username of ${min} to ${max} characters and retry with the same challenge.`,
    );
  }
  if (!usernamePattern.test(username)) {
    throw new AuthFailure(
      422,
      `The username "${username}" breaks the character rule: only lowercase letters a-z, digits, ".", "-" and "_", starting and ending with a letter or digit.`,
      'Choose a username that follows the rule (for example "my-agent-01") and retry with the same challenge.',
    );
  }
}

async function checkProof(ctx: AuthHostContext, claims: ChallengeClaims, request: SessionRequest): Promise<void> {
  const verdict = await verifyPow({
    challenge: claims.jti,
    nonce: request.nonce,
    powHex: request.powHex,
    salt: ctx.salt,
    difficulty: claims.difficulty,
  });
  if (verdict.ok) return;
  ctx.stats.powFailures += 1;
  if (verdict.reason === 'digest_mismatch') {
    throw new AuthFailure(
      401,
      'The proof of work is wrong: powHex is not the scrypt digest of "<jti>:<nonce>" with this service\'s salt.',
      `Compute scrypt(password = UTF-8 of "<jti>:<nonce>", salt = UTF-8 bytes of the text "${ctx.salt}" (do not hex-decode it), N=16384, r=8, p=1, 64 bytes), send it as lowercase hex; this challenge is now spent, so ${freshChallenge}.`,
    );
  }
  throw new AuthFailure(
    401,
    `The proof of work is too weak: the digest has ${verdict.zeroBits} leading zero bits but the challenge requires ${claims.difficulty}.`,
    `Try nonces 0, 1, 2, ... until the digest starts with ${claims.difficulty} zero bits; this challenge is now spent, so ${freshChallenge}.`,
  );
}

async function signUp(ctx: AuthHostContext, username: string, res: ServerResponse): Promise<void> {
  const address = `${username}@${ctx.domain}`;
  if (!ctx.accounts.reserve(username)) {
    throw new AuthFailure(
      409,
      `The username "${username}" is already taken.`,
      `Choose another username; then ${freshChallenge}. If this inbox is yours, log in with its apiKey instead.`,
    );
  }
  try {
    await ctx.createInbox(address);
  } catch (error) {
    ctx.accounts.release(username);
    ctx.log(
      `sandbox auth: creating inbox ${address} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    throw new AuthFailure(
      500,
      `The mail store could not create the inbox ${address}.`,
      `Nothing was created; ${freshChallenge}. If it repeats, check the sandbox's stderr.`,
    );
  }
  const { apiKey } = await ctx.accounts.commit(username, address);
  const session = await ctx.tokens.issueSession(address);
  ctx.stats.signups += 1;
  ctx.stats.sessionsIssued += 1;
  ctx.log(`sandbox auth: signed up ${address}`);
  sendJson(
    res,
    200,
    {
      apiKey,
      inbox: address,
      _next: [
        'Store the apiKey now: it is shown only once and is the only way back into this inbox.',
        `POST ${authPaths.capability} with this session JWT as bearer to get a capability JWT for JMAP.`,
      ],
    },
    { authorization: `Bearer ${session}` },
  );
}

async function logIn(ctx: AuthHostContext, apiKey: string, res: ServerResponse): Promise<void> {
  const account = ctx.accounts.findByApiKey(apiKey);
  if (!account) {
    throw new AuthFailure(
      401,
      'The apiKey is not known to this service.',
      `Check that the apiKey belongs to an inbox of this service (a sandbox without --data-dir forgets its inboxes on restart); then ${freshChallenge}, or sign up with a username instead.`,
    );
  }
  const session = await ctx.tokens.issueSession(account.address);
  ctx.stats.logins += 1;
  ctx.stats.sessionsIssued += 1;
  sendJson(
    res,
    200,
    {
      inbox: account.address,
      _next: [`POST ${authPaths.capability} with this session JWT as bearer to get a capability JWT for JMAP.`],
    },
    { authorization: `Bearer ${session}` },
  );
}
