import * as z from 'zod';
import { MailboxError } from '../errors.js';
import type { Logger } from '../log.js';
import { Deadline } from '../gate/deadline.js';
import { requestService } from '../gate/send-to-service.js';
import { challengeClaims, decodeJwtClaims, readBearerToken } from '../http/bearer-token.js';
import type { FetchFunction, RetryRule } from '../http/http-types.js';
import { jsonOrUndefined } from '../http/parse-json-bytes.js';
import { authPaths } from '../wire-constants.js';
import type { CallOptions, PowSummary } from './account-registry.js';

interface PowAuthClientOptions {
  authUrl: string;
  salt: string;
  timeoutMs: number;
  log: Logger;
  fetch?: FetchFunction;
  powWorkers?: number;
}

export interface SolvedChallenge {
  challengeJwt: string;
  nonce: string;
  powHex: string;
  pow: PowSummary;
}

const sessionBody = z.looseObject({ apiKey: z.string().min(1).optional(), inbox: z.string().min(1).optional() });

/** The session JWT, and the body's fields we use: sign-up returns apiKey and inbox (spec §2.5). */
export type SessionResult = { sessionJwt: string } & Pick<z.infer<typeof sessionBody>, 'apiKey' | 'inbox'>;

/** A challenge may expire while it is being solved; this many fresh challenges are tried in all. */
const maxChallengeAttempts = 3;

/** The spec §4.3 chain on the auth host: challenge → proof of work → session → capability. */
export class PowAuthClient {
  constructor(private readonly options: PowAuthClientOptions) {}

  async solveChallenge(call: CallOptions = {}): Promise<SolvedChallenge> {
    let tried = 0;
    let elapsedMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      // A challenge creates nothing an account could see twice, so it alone may be resent.
      const challengeJwt = readBearerToken(
        await this.post(authPaths.challenge, undefined, call, 'idempotent'),
        `POST ${authPaths.challenge}`,
      );
      const claims = decodeJwtClaims(challengeJwt, challengeClaims, 'challenge JWT');
      const expired = new AbortController();
      const msLeft = claims.exp === undefined ? undefined : claims.exp * 1000 - Date.now();
      // A challenge that is already spent in transit counts as expired at once, without solving.
      if (msLeft !== undefined && msLeft <= 0) expired.abort();
      const timer = msLeft === undefined || msLeft <= 0 ? undefined : setTimeout(() => expired.abort(), msLeft);
      const signal = call.signal ? AbortSignal.any([call.signal, expired.signal]) : expired.signal;
      try {
        const solve = async () =>
          (await import('../pow/solve-pow.js')).solvePow({
            challenge: claims.jti,
            difficulty: claims.difficulty,
            salt: this.options.salt,
            signal,
            workers: this.options.powWorkers,
            onProgress: call.onProgress,
          });
        // Solving is this machine's work, not the service's: it does not count against the call's timeout.
        const solution = call.deadline ? await call.deadline.offTheClock(solve) : await solve();
        tried += solution.tried;
        elapsedMs += solution.elapsedMs;
        return {
          challengeJwt,
          nonce: solution.nonce,
          powHex: solution.powHex,
          pow: { difficulty: claims.difficulty, tried, elapsedMs: Math.round(elapsedMs) },
        };
      } catch (error) {
        if (call.signal?.aborted || !expired.signal.aborted) throw error;
        if (attempt >= maxChallengeAttempts)
          throw new MailboxError({
            code: 'pow_too_slow',
            message: `${maxChallengeAttempts} challenges in a row expired before their proof of work was solved (difficulty ${claims.difficulty}).`,
            hint: 'This machine is too slow or too busy for the current difficulty; free some CPU and try again.',
          });
        this.options.log.info(
          `The challenge expired while solving (difficulty ${claims.difficulty}); fetching a fresh one (attempt ${attempt + 1}/${maxChallengeAttempts}).`,
        );
      } finally {
        if (timer) clearTimeout(timer);
      }
    }
  }

  /** POST /api/v1/session with a solved challenge: sign-up (username) or login (apiKey). */
  async openSession(
    solved: SolvedChallenge,
    who: { username: string } | { apiKey: string },
    call: CallOptions = {},
  ): Promise<SessionResult> {
    const body = JSON.stringify({ powHex: solved.powHex, nonce: solved.nonce, ...who });
    const response = await this.post(authPaths.session, { bearer: solved.challengeJwt, body }, call, 'once');
    const sessionJwt = readBearerToken(response, `POST ${authPaths.session}`);
    // A login answer may have no body; sign-up is checked by the caller.
    const parsed = sessionBody.safeParse(jsonOrUndefined(response)).data ?? {};
    return { sessionJwt, apiKey: parsed.apiKey, inbox: parsed.inbox };
  }

  /** POST /api/v1/capability with the session JWT as bearer. */
  async mintCapability(sessionJwt: string, call: CallOptions = {}): Promise<string> {
    return readBearerToken(
      await this.post(authPaths.capability, { bearer: sessionJwt }, call, 'once'),
      `POST ${authPaths.capability}`,
    );
  }

  private post(
    path: string,
    request: { bearer?: string; body?: string } | undefined,
    call: CallOptions,
    retry: RetryRule,
  ) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request?.bearer) headers.authorization = `Bearer ${request.bearer}`;
    if (request?.body) headers['content-type'] = 'application/json';
    return requestService(
      `${this.options.authUrl}${path}`,
      { method: 'POST', headers, ...(request?.body ? { body: request.body } : {}) },
      {
        deadline: call.deadline ?? Deadline.start({ timeoutMs: this.options.timeoutMs }),
        retry,
        log: this.options.log,
        signal: call.signal,
        fetch: this.options.fetch,
      },
    );
  }
}
