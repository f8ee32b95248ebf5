import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledAssets } from './bundle-assets.js';

let root: string | undefined;

/**
 * The package's root folder: one level up from src/ (vitest) and dist/ (built, or an npx install),
 * two from the bundle's chunks, the benches and the demo (dist/chunks/, dist/src/). The skill's single
 * file carries the package files inside itself instead (src/bundle-assets.ts).
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const here = fileURLToPath(new URL('../', import.meta.url));
  const above = dirname(here.replace(/[\\/]$/, ''));
  const deeper = !bundledAssets && !existsSync(join(here, 'package.json')) && existsSync(join(above, 'package.json'));
  return (root = deeper ? join(above, sep) : here);
}

function bundledKey(path: string): string {
  return relative(packageRoot(), path).split(sep).join('/');
}

/** Bundled copy first; any other path is read from disk. */
export async function readPackageFile(path: string): Promise<string> {
  const bundled = bundledAssets?.files[bundledKey(path)];
  return bundled ?? readFile(path, 'utf8');
}

// The package's own folders do not change while it runs (a session asked for the presets' twice a call).
const listed = new Map<string, Promise<readonly string[]>>();

export async function listPackageDir(dir: string): Promise<readonly string[]> {
  if (!bundledAssets) {
    const names = listed.get(dir) ?? readdir(dir);
    listed.set(dir, names);
    return names.catch((error: unknown) => (listed.delete(dir), Promise.reject(error)));
  }
  const prefix = `${bundledKey(dir)}/`;
  return Object.keys(bundledAssets.files)
    .filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes('/'))
    .map((key) => key.slice(prefix.length));
}

let cachedVersion: string | undefined;

/** Written into a bundle by the build (the skill's script has no package.json beside it). */
export async function packageVersion(): Promise<string> {
  if (cachedVersion !== undefined) return cachedVersion;
  if (bundledAssets) return (cachedVersion = bundledAssets.version);
  const raw: unknown = JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8'));
  const version = typeof raw === 'object' && raw !== null && 'version' in raw ? raw.version : undefined;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return (cachedVersion = version);
}
