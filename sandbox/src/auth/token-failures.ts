import { authPaths } from '../wire-constants.js';
import { AuthFailure } from './auth-http.js';
import type { TokenError } from './token-service.js';

const freshChallenge = `Request a fresh challenge with POST ${authPaths.challenge}, solve it, and retry`;
const freshSession = `Log in again: POST ${authPaths.challenge}, solve it, then POST ${authPaths.session} with {"powHex", "nonce", "apiKey"}, and use the new session JWT`;

/** 401 for a challenge JWT that is missing, expired, spent, foreign or of another kind. */
export function challengeTokenFailure(error: TokenError, challengeSeconds: number): AuthFailure {
  switch (error.reason) {
    case 'missing':
      return new AuthFailure(
        401,
        'No challenge JWT was sent.',
        `${freshChallenge}, sending the challenge JWT as "Authorization: Bearer <jwt>".`,
      );
    case 'expired':
      return new AuthFailure(
        401,
        'The challenge has expired.',
        `${freshChallenge} within ${challengeSeconds} seconds.`,
      );
    case 'reused':
      return new AuthFailure(401, error.message, `${freshChallenge}; every session request needs its own challenge.`);
    default:
      return new AuthFailure(
        401,
        error.message,
        `${freshChallenge}, and send that challenge JWT (not a session or capability JWT) as the bearer.`,
      );
  }
}

/** 401 for a session JWT presented at /api/v1/capability that does not hold. */
export function sessionTokenFailure(error: TokenError): AuthFailure {
  switch (error.reason) {
    case 'missing':
      return new AuthFailure(
        401,
        'No session JWT was sent.',
        `Send the session JWT from POST ${authPaths.session} as "Authorization: Bearer <jwt>".`,
      );
    case 'expired':
      return new AuthFailure(401, 'The session has expired.', `${freshSession}.`);
    default:
      return new AuthFailure(
        401,
        error.message,
        `Send the session JWT from POST ${authPaths.session} as the bearer; if you have none, ${freshSession.charAt(0).toLowerCase()}${freshSession.slice(1)}.`,
      );
  }
}
