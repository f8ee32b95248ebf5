import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The client is read by everyone who trusts it with an inbox: its code (every .ts file of src/, Prettier-formatted,
// which `npm run lint` checks) stays within a budget a reviewer can read. Growing past it means taking something out.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const maxClientLines = 26_000;

function lineCounts(dir: string): [string, number][] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): [string, number][] => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return lineCounts(path);
    if (!entry.name.endsWith('.ts')) return [];
    const text = readFileSync(path, 'utf8');
    return [[relative(repoRoot, path), text.split('\n').length - (text.endsWith('\n') ? 1 : 0)]];
  });
}

describe('client size', () => {
  it(`the client's src/ is at most ${maxClientLines} lines of TypeScript`, () => {
    const counts = lineCounts(join(repoRoot, 'src'));
    const total = counts.reduce((sum, [, lines]) => sum + lines, 0);
    const largest = counts
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([path, lines]) => `${path} (${lines})`);
    expect(total, `src/ is ${total} lines; its largest files: ${largest.join(', ')}`).toBeLessThanOrEqual(
      maxClientLines,
    );
  });
});
