import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CapabilityClaims } from '../mail-backend.js';
import { authPaths } from '../wire-constants.js';
import type { AccountStore } from './account-store.js';
import { emptyAuthStats, type AuthHostContext, type AuthStats } from './auth-host-context.js';
import { AuthFailure, sendFailure, sendJson } from './auth-http.js';
import { TokenBucket, type RateLimit } from './rate-limiter.js';
import { handleSession } from './session-endpoint.js';
import type { SigningKey } from './signing-key.js';
import { SandboxError } from './sandbox-error.js';
import { sessionTokenFailure } from './token-failures.js';
import { parseBearer, TokenError, TokenService, type TokenLifetimes } from './token-service.js';

export interface AuthHostOptions {
  key: SigningKey;
  accounts: AccountStore;
  lifetimes: TokenLifetimes;
  difficulty: number;
  salt: string;
  domain: string;
  /** `false` turns rate limiting off. */
  rateLimit: RateLimit | false;
  createInbox(address: string): Promise<void>;
  log(line: string): void;
  /** Clock of token expiry and the rate limit (milliseconds since the epoch). */
  now?: () => number;
}

/** The auth host: an HTTP handler plus the capability check the JMAP host relies on. */
export interface AuthHost {
  handle(req: IncomingMessage, res: ServerResponse): void;
  stats(): AuthStats;
  /** Verifies a capability JWT (with or without "Bearer "); throws SandboxError (status 401) otherwise. */
  verifyCapability(bearer: string): Promise<CapabilityClaims>;
}

/** Builds the proof-of-work auth host of the sandbox (spec §4.3, §7.2). */
export function createAuthHost(options: AuthHostOptions): AuthHost {
  const ctx: AuthHostContext = {
    tokens: new TokenService(options.key, options.lifetimes, options.now),
    accounts: options.accounts,
    lifetimes: options.lifetimes,
    difficulty: options.difficulty,
    salt: options.salt,
    domain: options.domain,
    stats: emptyAuthStats(),
    createInbox: options.createInbox,
    log: options.log,
  };
  const bucket = options.rateLimit === false ? undefined : new TokenBucket(options.rateLimit, options.now);

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!URL.canParse(req.url ?? '/', 'http://sandbox.invalid')) {
      throw new AuthFailure(
        400,
        'The request target is not a valid URL path.',
        `Use POST ${authPaths.challenge}, POST ${authPaths.session} or POST ${authPaths.capability}.`,
      );
    }
    const path = new URL(req.url ?? '/', 'http://sandbox.invalid').pathname;
    const method = req.method ?? 'GET';
    if (path === authPaths.challenge) {
      requireMethod(method, 'POST');
      req.resume();
      const decision = bucket?.take() ?? { allowed: true };
      if (!decision.allowed) {
        const wait = decision.retryAfterSeconds;
        throw new AuthFailure(
          429,
          'Too many challenge requests.',
          `Wait ${wait} seconds (see the Retry-After header), then request the challenge again.`,
          { 'retry-after': String(wait) },
        );
      }
      const challenge = await ctx.tokens.issueChallenge(ctx.difficulty);
      ctx.stats.challenges += 1;
      sendJson(
        res,
        200,
        {
          _next: [
            `Solve the challenge, then POST ${authPaths.session} with it as bearer within ${ctx.lifetimes.challengeSeconds} seconds.`,
          ],
        },
        { authorization: `Bearer ${challenge}` },
      );
    } else if (path === authPaths.session) {
      requireMethod(method, 'POST');
      await handleSession(ctx, req, res);
    } else if (path === authPaths.capability) {
      requireMethod(method, 'POST');
      req.resume();
      await handleCapability(ctx, req, res);
    } else if (path === authPaths.jwks) {
      requireMethod(method, 'GET');
      sendJson(res, 200, { keys: [options.key.publicJwk] });
    } else if (path === '/sandbox/stats') {
      requireMethod(method, 'GET');
      sendJson(res, 200, { ...ctx.stats });
    } else {
      // Includes /api/v1/capability/<anything>: internal delegation endpoints answer 404 from outside (spec §5 fact 9).
      req.resume();
      throw new AuthFailure(
        404,
        `No endpoint ${method} ${path} on this auth host.`,
        `Use POST ${authPaths.challenge}, POST ${authPaths.session} or POST ${authPaths.capability}.`,
      );
    }
  };

  return {
    handle(req, res) {
      route(req, res).catch((error: unknown) => {
        if (res.headersSent) return void res.destroy();
        req.resume();
        if (error instanceof AuthFailure) return sendFailure(res, error);
        options.log(
          `sandbox auth: internal error on ${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`,
        );
        sendFailure(
          res,
          new AuthFailure(
            500,
            'The sandbox auth host failed unexpectedly.',
            "Retry; if it repeats, check the sandbox's stderr and report it.",
          ),
        );
      });
    },
    stats: () => ({ ...ctx.stats }),
    verifyCapability: (bearer) => verifyCapabilityToken(ctx, bearer),
  };
}

async function handleCapability(ctx: AuthHostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let address: string;
  try {
    ({ address } = await ctx.tokens.verifySession(parseBearer(req.headers.authorization)));
  } catch (error) {
    throw error instanceof TokenError ? sessionTokenFailure(error) : error;
  }
  if (!ctx.accounts.hasAddress(address)) {
    throw new AuthFailure(
      401,
      `The inbox ${address} of this session no longer exists.`,
      'Sign up again with POST /api/v1/challenge and POST /api/v1/session {powHex, nonce, username}.',
    );
  }
  const capability = await ctx.tokens.issueCapability(address);
  ctx.stats.capabilitiesIssued += 1;
  sendJson(
    res,
    200,
    {
      _next: [
        `Use the capability JWT as bearer on the JMAP host; mint a new one before it expires in ${ctx.lifetimes.capabilitySeconds} seconds.`,
      ],
    },
    { authorization: `Bearer ${capability}` },
  );
}

async function verifyCapabilityToken(ctx: AuthHostContext, bearer: string): Promise<CapabilityClaims> {
  try {
    const token = /^\s*bearer\s/i.test(bearer) ? parseBearer(bearer) : bearer.trim();
    const claims = await ctx.tokens.verifyCapability(token);
    if (!ctx.accounts.hasAddress(claims.address))
      throw new TokenError('invalid', `The inbox ${claims.address} does not exist.`);
    return { address: claims.address, inboxId: claims.inboxId };
  } catch (error) {
    if (!(error instanceof TokenError)) throw error;
    const expired = error.reason === 'expired';
    throw new SandboxError(
      expired ? 'The capability JWT has expired.' : error.message,
      `Mint a fresh capability JWT with POST ${authPaths.capability} (session JWT as bearer) and retry.`,
      401,
      { cause: error },
    );
  }
}

function requireMethod(actual: string, allowed: 'GET' | 'POST'): void {
  if (actual !== allowed) {
    throw new AuthFailure(405, `Method ${actual} is not allowed here.`, `Use ${allowed}.`, { allow: allowed });
  }
}
