/** `mcp` with no options, as hosts start it: the server, held for a long session. */
export const servesMcp = (argv: readonly string[]): boolean => argv.length === 1 && argv[0] === 'mcp';

/** The settings the server runs under: V8's young generation growing fourfold, then held at that size. */
const growing = '--heap-growing-percent=50 --semi-space-growth-factor=4';
const held = '--heap-growing-percent=50 --semi-space-growth-factor=1';

/**
 * V8 sizes its heap for throughput: a session's calls grow the young generation to 32 MiB and let the old one reach
 * four times what is live. Held at its starting 2 MiB, the young one was collected on nearly every call, a tenth of
 * its time: it may grow once, fourfold, and the old one by half of what is live (docs/benchmarks.md). V8 takes no
 * largest young size once started, and shrinks it while the host is idle: the growth is watched for the process's
 * life. Set before any of the program loads; returns every setting it may make, under which the code caches are
 * made (src/start/load-bundle.ts), since V8 takes a cache only under the flags it was made under.
 */
export function holdHeap(
  v8: Pick<typeof import('node:v8'), 'setFlagsFromString' | 'getHeapSpaceStatistics'>,
  { PerformanceObserver }: typeof import('node:perf_hooks'),
): readonly string[] {
  v8.setFlagsFromString(growing);
  let isHeld = false;
  new PerformanceObserver(() => {
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    const grown = (young?.space_size ?? 0) >= 2 ** 23;
    if (grown !== isHeld) v8.setFlagsFromString(grown ? held : growing);
    isHeld = grown;
  }).observe({ entryTypes: ['gc'] });
  return [growing, held];
}
