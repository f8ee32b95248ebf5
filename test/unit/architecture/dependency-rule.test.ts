import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The dependency rule of STYLE.md: cli|mcp → operations → core, never backwards; the sandbox
// shares only wire constants with the client; core has no console, process.env or process.exit.
const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');

function listSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return listSources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

const files = listSources(srcRoot).map((full) => ({
  path: relative(srcRoot, full).replace(/\\/g, '/'),
  text: readFileSync(full, 'utf8'),
}));

function localImports(file: { path: string; text: string }): string[] {
  const specs = [
    ...file.text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ];
  return specs.map((m) =>
    relative(srcRoot, resolve(srcRoot, dirname(file.path), (m[1] ?? m[2]) as string)).replace(/\\/g, '/'),
  );
}

const layerOf = (path: string): string => (path.includes('/') ? path.split('/')[0]! : path.replace(/\.ts$/, ''));
const frontDoors = new Set(['cli', 'mcp', 'bin']);
const entryLayers = new Set(['cli', 'mcp', 'bin', 'front', 'sandbox', 'bench', 'demo']);

describe('dependency rule', () => {
  it('core and operations never import a front door', () => {
    const offenders = files.flatMap((file) =>
      frontDoors.has(layerOf(file.path))
        ? []
        : localImports(file)
            .filter((target) => frontDoors.has(layerOf(target)))
            .map((target) => `${file.path} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('core never imports the operations table', () => {
    const offenders = files.flatMap((file) =>
      entryLayers.has(layerOf(file.path)) || layerOf(file.path) === 'operations'
        ? []
        : localImports(file)
            .filter((target) => layerOf(target) === 'operations')
            .map((target) => `${file.path} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the sandbox shares nothing with the client but wire constants', () => {
    const offenders = files.flatMap((file) =>
      layerOf(file.path) !== 'sandbox'
        ? []
        : localImports(file)
            .filter(
              (target) =>
                layerOf(target) !== 'sandbox' && target !== 'wire-constants.js' && target !== 'wire-constants',
            )
            .map((target) => `${file.path} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the client never imports the sandbox, except the table entry that starts it', () => {
    const offenders = files.flatMap((file) =>
      ['sandbox', 'cli', 'bench', 'demo'].includes(layerOf(file.path)) || file.path === 'operations/sandbox.ts'
        ? []
        : localImports(file)
            .filter((target) => layerOf(target) === 'sandbox')
            .map((target) => `${file.path} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('core code has no console, process.env or process.exit', () => {
    const offenders = files
      .filter((file) => !entryLayers.has(layerOf(file.path)))
      .filter((file) =>
        /\bconsole\.|process\.env|process\.exit\(/.test(file.text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')),
      )
      .map((file) => file.path);
    expect(offenders).toEqual([]);
  });
});
