import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type { Script } from 'node:vm';

/**
 * Runs the package's bundle (dist/chunks/, CommonJS) with V8's code cache: what one run compiled, written to the
 * user's cache directory at its exit, spares every later start compiling it (a quarter of a cold listing,
 * docs/benchmarks.md). node 20 has no code cache for ES modules, and node 22's compile cache keeps only what is
 * compiled before a module runs. The cache is code: it is read only from a directory and files of this user's
 * own that no one else may write, never through a link. A cache names its chunk (whose name hashes its content), its
 * length and V8's tag for its version, flags and CPU (`v8.cachedDataVersionTag()`), so a run finds only caches V8
 * takes; a refused or missing cache is made anew. Anything wrong with the cache only means compiling as without it.
 */

type ChunkModule = { exports: unknown };

/** Files a cache may be; larger ones are no cache of ours. */
const maxCacheBytes = 64 * 1024 * 1024;
/** Caches not made anew within this time are left from other versions: removed when a new one is written. */
const staleAfterMs = 30 * 24 * 3600 * 1000;
const cacheSuffix = '.v8-cache';

/** A directory of this user's only (POSIX; elsewhere the user's profile folders are private already). */
function isOwnPrivate(stat: { uid: number; mode: number }): boolean {
  return process.getuid === undefined || (stat.uid === process.getuid() && (stat.mode & 0o022) === 0);
}

/** The cache directory, created private when missing; undefined when it is not this user's alone. */
function usableCacheDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    return stat.isDirectory() && isOwnPrivate(stat) ? dir : undefined;
  } catch {
    return undefined;
  }
}

function readCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const stat = fstatSync(fd);
    return stat.isFile() && isOwnPrivate(stat) && stat.size <= maxCacheBytes ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Written whole or not at all: another process may be writing the same cache. */
function writeCache(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(temp, data, { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
  }
}

/** A temp file a killed run left is removed as its cache would be. */
function removeStaleCaches(dir: string, now: number): void {
  for (const name of readdirSync(dir).filter((entry) => entry.includes(cacheSuffix))) {
    const file = join(dir, name);
    if (now - statSync(file).mtimeMs > staleAfterMs) unlinkSync(file);
  }
}

/**
 * Loads `entry` and the chunks it requires, each once, through the cache in `cacheDir` (none when undefined); caches
 * made in this run are written when the process exits, each under the V8 flags it was loaded under: as they are then,
 * or one of the `flagSettings` the run may have changed them to.
 */
export function loadBundle(entry: string, cacheDir: string | undefined, flagSettings: readonly string[] = []): unknown {
  const builtin = createRequire(__filename);
  const vm = builtin('node:vm') as typeof import('node:vm');
  const v8 = builtin('node:v8') as typeof import('node:v8');
  const chunksDir = dirname(entry);
  const dir = cacheDir === undefined ? undefined : usableCacheDir(cacheDir);
  const loaded = new Map<string, ChunkModule>();
  /** The caches to make, by the tag they were looked up under. */
  const made = new Map<number, { script: Script; name: string }[]>();
  const cacheFile = (name: string, tag: number): string => join(dir ?? '', `${name}.${tag}${cacheSuffix}`);
  const load = (file: string): unknown => {
    const known = loaded.get(file);
    if (known) return known.exports;
    const module: ChunkModule = { exports: {} };
    loaded.set(file, module);
    const source = readFileSync(file, 'utf8');
    const name = `${basename(file, '.js')}.${source.length}`;
    const tag = v8.cachedDataVersionTag();
    const cachedData = dir ? readCache(cacheFile(name, tag)) : undefined;
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      ...(cachedData && { cachedData }),
    });
    if (dir && (cachedData === undefined || script.cachedDataRejected === true))
      made.set(tag, [...(made.get(tag) ?? []), { script, name }]);
    // Chunks name each other as ./name.js; everything else (node's modules) is node's to load.
    const nodeRequire = createRequire(file);
    const require = (specifier: string): unknown =>
      specifier.startsWith('./') ? load(join(chunksDir, specifier)) : nodeRequire(specifier);
    const run = script.runInThisContext() as (...args: unknown[]) => void;
    run.call(module.exports, module.exports, require, module, file, chunksDir);
    return module.exports;
  };
  if (dir)
    process.once('exit', () => {
      if (made.size === 0) return;
      try {
        for (const flags of ['', ...flagSettings]) {
          if (flags) v8.setFlagsFromString(flags);
          const tag = v8.cachedDataVersionTag();
          for (const { script, name } of made.get(tag) ?? [])
            writeCache(cacheFile(name, tag), script.createCachedData());
          made.delete(tag);
        }
        removeStaleCaches(dir, Date.now());
      } catch {
        // A cache not written is made by the next run; a stale one another process removed first is gone.
      }
    });
  return load(entry);
}
