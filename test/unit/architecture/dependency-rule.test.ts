import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { folderCycles, folderGraph } from './folder-graph.js';

// The dependency rule of STYLE.md: cli|mcp → operations → core, never backwards; the client and
// the sandbox (a package of its own, sandbox/) import nothing of each other; core has no console,
// process.env or process.exit.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const srcRoot = join(repoRoot, 'src');
const sandboxRoot = join(repoRoot, 'sandbox', 'src');

function listSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return listSources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

const read = (root: string) =>
  listSources(root).map((full) => ({
    path: relative(root, full).replace(/\\/g, '/'),
    text: readFileSync(full, 'utf8'),
  }));
const files = read(srcRoot);
const sandboxFiles = read(sandboxRoot);

/** Relative imports, resolved against `root` (a result outside it starts with `..`). */
function localImports(file: { path: string; text: string }, root = srcRoot): string[] {
  const specs = [
    ...file.text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ];
  return specs.map((m) =>
    relative(root, resolve(root, dirname(file.path), (m[1] ?? m[2]) as string)).replace(/\\/g, '/'),
  );
}

/** Package imports (`from 'name'`, `import('name/x')`) by package name. */
function packageImports(file: { text: string }): string[] {
  const specs = [
    ...file.text.matchAll(
      /(?:import|export)[^'"]*?from\s+['"]([^.'"][^'"]*)['"]|import\(\s*['"]([^.'"][^'"]*)['"]\s*\)/g,
    ),
  ];
  return specs.map((m) => {
    const spec = (m[1] ?? m[2]) as string;
    return spec
      .split('/')
      .slice(0, spec.startsWith('@') ? 2 : 1)
      .join('/');
  });
}

const layerOf = (path: string): string => (path.includes('/') ? path.split('/')[0]! : path.replace(/\.ts$/, ''));
const frontDoors = new Set(['cli', 'mcp', 'bin', 'front', 'start']);
const entryLayers = new Set(['cli', 'mcp', 'bin', 'front', 'start']);

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

  it('the sandbox imports nothing of the client: no path out of sandbox/src, not the client package', () => {
    const offenders = sandboxFiles.flatMap((file) => [
      ...localImports(file, sandboxRoot)
        .filter((target) => target.startsWith('..'))
        .map((target) => `sandbox/src/${file.path} → ${target}`),
      ...packageImports(file)
        .filter((name) => name === 'agent-mailbox')
        .map((name) => `sandbox/src/${file.path} → ${name}`),
    ]);
    expect(offenders).toEqual([]);
  });

  it('the client imports nothing of the sandbox: no path out of src, not the sandbox package', () => {
    const offenders = files.flatMap((file) => [
      ...localImports(file)
        .filter((target) => target.startsWith('..'))
        .map((target) => `src/${file.path} → ${target}`),
      ...packageImports(file)
        .filter((name) => name === 'agent-mailbox-sandbox')
        .map((name) => `src/${file.path} → ${name}`),
    ]);
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

  it('no cycle between the folders of src/ at run time (a root file is a folder of its own; bin.ts and front.ts are entries)', () => {
    expect(folderCycles(folderGraph(srcRoot, new Set(['bin.ts', 'front.ts'])))).toEqual([]);
  });

  it('a planted folder cycle fails, named with one file import a step (a dynamic import() counts)', () => {
    const planted = join(repoRoot, 'test', 'fixtures', 'folder-cycle', 'planted');
    expect(folderCycles(folderGraph(planted, new Set(['entry.ts'])))).toEqual([
      'alpha → beta → alpha (alpha/start.ts → beta/middle.ts; beta/back.ts → alpha/end.ts)',
    ]);
    // The entry is an importer like any other when not named one: shared → entry → alpha is no cycle either.
    expect(
      folderGraph(planted, new Set(['entry.ts']))
        .edges.get('shared.ts')
        ?.get('entry.ts'),
    ).toEqual({
      from: 'shared.ts',
      to: 'entry.ts',
    });
    expect(folderGraph(planted, new Set(['entry.ts'])).edges.has('entry.ts')).toBe(false);
  });

  it('type-only imports back make no cycle: tsc erases them', () => {
    const typeOnly = join(repoRoot, 'test', 'fixtures', 'folder-cycle', 'type-only');
    const graph = folderGraph(typeOnly);
    expect(graph.edges.get('alpha')?.has('beta')).toBe(true);
    expect(graph.edges.has('beta')).toBe(false);
    expect(folderCycles(graph)).toEqual([]);
  });
});
