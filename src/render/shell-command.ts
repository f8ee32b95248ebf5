import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { shellQuote } from './shell-quote.js';

const binName = 'agent-mailbox'; // package.json "bin"

interface ShellCommandSource {
  /** dist/bin.js, or the skill's single-file bundle. */
  cliPath: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Without one (an MCP server a host started) paths stay absolute. */
  cwd?: string | undefined;
}

/**
 * The words that run this CLI again at the operator's shell. A bare `agent-mailbox` is right only on
 * PATH: a copied skill, a checkout or a tarball gets `node <entry>` (relative inside the working
 * directory), and a copy that npx fetched gets npx again.
 */
export function shellCommandFor(source: ShellCommandSource): string {
  if (isInNpxCache(source.cliPath, source.env)) return `npx -y ${binName}`;
  const entry = userFacingEntry(source.cliPath);
  if (isOnPath(entry, source.env.PATH)) return binName;
  return `node ${shellQuote((source.cwd ? relativeInside(source.cwd, entry) : undefined) ?? entry)}`;
}

/**
 * An entry whose real path lies in `<cache>/_npx/` was started by npx. Not the environment:
 * `npm_lifecycle_event=npx` is inherited by everything npx's process starts (an installed server a
 * host launched with npx), and that line would run whatever package holds the name on the registry.
 */
function isInNpxCache(cliPath: string, env: ShellCommandSource['env']): boolean {
  const real = realOrUndefined(cliPath);
  if (!real) return false;
  return npmCacheDirs(env).some((cache) => {
    const npxDir = realOrUndefined(join(cache, '_npx'));
    return npxDir !== undefined && relativeInside(npxDir, real) !== undefined;
  });
}

/** The cache npm was told to use (npm passes its settings on as npm_config_*), and its default. */
function npmCacheDirs(env: ShellCommandSource['env']): string[] {
  const dirs = [env.npm_config_cache];
  if (process.platform === 'win32') dirs.push(env.LOCALAPPDATA && join(env.LOCALAPPDATA, 'npm-cache'));
  else dirs.push(env.HOME && join(env.HOME, '.npm'));
  return dirs.filter((dir): dir is string => !!dir);
}

/** A package's tsc entry (dist/bin.js) is reached through bin/agent-mailbox.js, the file people name. */
function userFacingEntry(cliPath: string): string {
  if (basename(cliPath) !== 'bin.js' || basename(dirname(cliPath)) !== 'dist') return cliPath;
  const bin = join(dirname(dirname(cliPath)), 'bin', `${binName}.js`);
  return existsSync(bin) ? bin : cliPath;
}

/**
 * Only an npm install (global, or npm link) puts the bin on PATH, and then the entry lives under a
 * node_modules directory; anything else skips the look-up (a few stat calls per PATH entry).
 */
function isOnPath(entry: string, path: string | undefined): boolean {
  if (!path || !entry.split(/[\\/]/).includes('node_modules')) return false;
  const target = realOrUndefined(entry);
  if (!target) return false;
  return path
    .split(process.platform === 'win32' ? ';' : ':')
    .some((dir) => dir !== '' && realOrUndefined(join(dir, binName)) === target);
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function relativeInside(dir: string, path: string): string | undefined {
  const inside = relative(dir, path);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : undefined;
}
