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

export function powProgressAt(tried: number, difficulty: number, elapsedMs: number): PowProgress {
  const expected = 2 ** difficulty;
  const rate = elapsedMs > 0 ? (tried * 1000) / elapsedMs : 0;
  // Each hash is an independent trial, so the expected remaining work never shrinks (reference/README.md).
  const etaSeconds = rate > 0 ? expected / rate : Number.POSITIVE_INFINITY;
  const chanceByNow = 1 - Math.pow(1 - 2 ** -difficulty, tried);
  return { tried, expected, difficulty, rate, elapsedMs, etaSeconds, chanceByNow };
}
