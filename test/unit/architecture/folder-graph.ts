import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One run-time import between two folders: the file that imports and the file it imports. */
export interface FolderEdge {
  from: string;
  to: string;
}

/** The folders of a source tree and, per pair, one file import that makes the edge. */
export interface FolderGraph {
  /** from folder → to folder → one file edge (the first found, in path order). */
  edges: Map<string, Map<string, FolderEdge>>;
}

/**
 * A file's folder node: its top-level folder, or, for a file at the root (errors.ts, config.ts),
 * the file itself. Subfolders belong to their top-level folder: a cycle inside one concern is the
 * file-level lint rule's business (import-x/no-cycle), a cycle between concerns is this graph's.
 */
export function folderOf(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? path : path.slice(0, slash);
}

function listSources(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return listSources(full);
      return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
    });
}

/**
 * The relative specifiers a file loads at run time: static imports and re-exports that are not
 * type-only (`import type`, `export type`, or every named binding marked `type`), and every
 * dynamic `import()`, which loads the module as surely, only later.
 */
export function runtimeImports(text: string): string[] {
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specs: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!isTypeOnlyImport(node)) specs.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!isTypeOnlyExport(node)) specs.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs.filter((spec) => spec.startsWith('.'));
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0
    ? bindings.elements.every((element) => element.isTypeOnly)
    : false;
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0
    ? clause.elements.every((element) => element.isTypeOnly)
    : false;
}

/**
 * The folder graph of the tree at `root`: an edge a → b when a file of folder a imports a file of
 * folder b at run time. Files whose folder is in `entries` are left out as importers (the process's
 * entry points import everything); imports that leave the tree are not this graph's.
 */
export function folderGraph(root: string, entries: ReadonlySet<string> = new Set()): FolderGraph {
  const edges = new Map<string, Map<string, FolderEdge>>();
  for (const full of listSources(root)) {
    const from = relative(root, full).replace(/\\/g, '/');
    const fromFolder = folderOf(from);
    if (entries.has(fromFolder)) continue;
    for (const spec of runtimeImports(readFileSync(full, 'utf8'))) {
      const to = relative(root, resolve(dirname(full), spec))
        .replace(/\\/g, '/')
        .replace(/\.js$/, '.ts');
      if (to.startsWith('..')) continue;
      const toFolder = folderOf(to);
      if (toFolder === fromFolder) continue;
      const targets = edges.get(fromFolder) ?? new Map<string, FolderEdge>();
      if (!targets.has(toFolder)) targets.set(toFolder, { from, to });
      edges.set(fromFolder, targets);
    }
  }
  return { edges };
}

/**
 * The cycles between folders: for each folder that lies on one, the shortest way round through it,
 * each cycle once, worded `a → b → a (a/x.ts → b/y.ts; b/z.ts → a/w.ts)` with one file edge a step.
 */
export function folderCycles(graph: FolderGraph): string[] {
  const cycles = new Map<string, string>();
  for (const set of stronglyConnected(graph).filter((members) => members.length > 1)) {
    const members = new Set(set);
    for (const start of [...set].sort()) {
      const path = shortestCycle(graph, start, members);
      const ring = path.slice(0, -1);
      // The same ring found from another of its folders is worded from its first folder by name.
      const first = ring.indexOf([...ring].sort()[0] as string);
      const rotated = [...ring.slice(first), ...ring.slice(0, first)];
      const key = rotated.join(' → ');
      if (cycles.has(key)) continue;
      const round = [...rotated, rotated[0] as string];
      const files = rotated.map((folder, i) => {
        const edge = graph.edges.get(folder)?.get(round[i + 1] as string) as FolderEdge;
        return `${edge.from} → ${edge.to}`;
      });
      cycles.set(key, `${round.join(' → ')} (${files.join('; ')})`);
    }
  }
  return [...cycles.values()].sort();
}

/** Breadth first from `start` back to it, inside `members`: the folders in order, `start` at both ends. */
function shortestCycle(graph: FolderGraph, start: string, members: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift() as string;
    for (const next of [...(graph.edges.get(at)?.keys() ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const back: string[] = [];
        for (let step: string | undefined = at; step !== undefined && step !== start; step = cameFrom.get(step))
          back.push(step);
        return [start, ...back.reverse(), start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** Tarjan's strongly connected components of the folder graph. */
function stronglyConnected(graph: FolderGraph): string[][] {
  const nodes = new Set<string>();
  for (const [from, targets] of graph.edges) {
    nodes.add(from);
    for (const to of targets.keys()) nodes.add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const sets: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const set: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        set.push(member);
        if (member === node) break;
      }
      sets.push(set);
    }
  };
  for (const node of [...nodes].sort()) if (!index.has(node)) connect(node);
  return sets;
}
