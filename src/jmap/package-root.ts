import { fileURLToPath } from 'node:url';

/**
 * The package's root folder: this file is src/jmap/ under vitest and dist/jmap/ when built, so
 * two levels up works from both, and from an npx install (presets/ and skill/ ship in `files`).
 */
export function packageRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url));
}
