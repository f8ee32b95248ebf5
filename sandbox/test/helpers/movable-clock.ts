import { decodeJwt } from './sandbox.js';

/**
 * A clock for the token chain that tests move instead of waiting: real time plus an offset. The
 * sandbox keeps real time, so a token it issues is judged by its `exp` claim at the moved time.
 */
export interface MovableClock {
  now: () => number;
  /** Moves the clock so that `jwt` has exactly `seconds` left (negative: expired that long ago). */
  moveTo(jwt: string, secondsLeft: number): void;
  /** The current offset from real time, in milliseconds. */
  offsetMs(): number;
}

export function movableClock(): MovableClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    moveTo(jwt, secondsLeft) {
      offset = Number(decodeJwt(jwt)['exp']) * 1000 - secondsLeft * 1000 - Date.now();
    },
    offsetMs: () => offset,
  };
}
