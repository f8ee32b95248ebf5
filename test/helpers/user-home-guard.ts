import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveUserConfigDir } from '../../src/config.js';

/**
 * vitest globalSetup: the run gets a home of its own, and the invoking user's config directory
 * (their default credentials, their user-layer policy, their wake marks) must come out of it as it
 * went in. HOME and XDG_CONFIG_HOME point at a temp directory before any worker starts, so every
 * test, in process or spawned, that does not name its own directories lands there instead of in
 * the user's; the snapshot is what notices a test that reached the real one by another route.
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
  const userConfigDir = resolveUserConfigDir(process.env);
  const before = snapshot(userConfigDir);
  const home = mkdtempSync(join(tmpdir(), 'agent-mailbox-test-home-'));
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(home, { recursive: true, force: true });
    const changed = changes(before, snapshot(userConfigDir));
    if (changed.length === 0) return;
    // A thrown teardown error is only logged by vitest; the run must fail.
    process.exitCode = 1;
    process.stderr.write(
      `\nThe test run changed the invoking user's config directory ${userConfigDir} (it must never touch it):\n${changed.join('\n')}\n`,
    );
  };
}
