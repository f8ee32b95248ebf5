/** A progress report of a running proof-of-work search. */
export interface PowProgress {
  /** Hashes computed so far for the current challenge. */
  tried: number;
  /** 2^difficulty: the mean number of hashes a solution takes (the search has no memory). */
  expected: number;
  difficulty: number;
  /** Hashes per second over the solve so far. */
  rate: number;
  elapsedMs: number;
  /** Mean seconds still needed at the current rate (memoryless: always expected ÷ rate). */
  etaSeconds: number;
  /** Chance that a solution would have turned up by now: 1 − (1 − 2^−d)^tried. */
  chanceByNow: number;
}
