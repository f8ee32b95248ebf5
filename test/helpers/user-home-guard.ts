import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { resolveUserConfigDir } from '../../src/config.js';

/**
 * vitest globalSetup: the run gets a home of its own, and the invoking user's config directory
 * (their default credentials, their user-layer policy, their wake marks) and cache directory (the
 * package bin's code cache) must come out of it as they went in. HOME, XDG_CONFIG_HOME and
 * XDG_CACHE_HOME point at a temp directory before any worker starts, so every test, in process or
 * spawned, that does not name its own directories lands there instead of in the user's; the
 * snapshots are what notice a test that reached the real ones by another route (a child given no
 * HOME finds the user's own in the password database).
 */

type Tree = Map<string, number>;

function snapshot(dir: string): Tree {
  const tree: Tree = new Map();
  const walk = (path: string): void => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    tree.set(path, stat.mtimeMs);
    if (!stat.isDirectory()) return;
    for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return tree;
}

function changes(before: Tree, after: Tree): string[] {
  const lines: string[] = [];
  for (const [path, mtime] of after) {
    if (!before.has(path)) lines.push(`added ${path}`);
    else if (before.get(path) !== mtime) lines.push(`changed ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) lines.push(`removed ${path}`);
  return lines;
}

export default function guardUserHome(): () => void {
  const userDirs = [resolveUserConfigDir(process.env), envPaths('agent-mailbox', { suffix: '' }).cache];
  const before = userDirs.map(snapshot);
  const home = mkdtempSync(join(tmpdir(), 'agent-mailbox-test-home-'));
  const saved = {
    HOME: process.env.HOME,
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
  };
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  process.env.XDG_CACHE_HOME = join(home, '.cache');
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(home, { recursive: true, force: true });
    const changed = userDirs.flatMap((dir, i) => changes(before[i] ?? new Map(), snapshot(dir)));
    if (changed.length === 0) return;
    // A thrown teardown error is only logged by vitest; the run must fail.
    process.exitCode = 1;
    process.stderr.write(
      `\nThe test run changed the invoking user's directories ${userDirs.join(' and ')} (it must never touch them):\n${changed.join('\n')}\n`,
    );
  };
}
