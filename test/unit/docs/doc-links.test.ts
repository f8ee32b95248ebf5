import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README is the first screen of a newcomer and the docs/ folder holds the rest: links between
// them must land, the README must stay short, and nothing a reader copies may be broken JSON.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const docFiles = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

/** Half of the README's length before it was rewritten for newcomers (44,492 bytes). */
const readmeBudgetBytes = 22_246;

/** The packages the shipped code imports (src/ without the benches, which never ship), by name. */
function importedPackages(dir: string): Set<string> {
  const names = new Set<string>();
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (relative(root, path) !== join('src', 'bench')) for (const name of importedPackages(path)) names.add(name);
      continue;
    }
    if (!entry.endsWith('.ts')) continue;
    for (const match of read(relative(root, path)).matchAll(
      /(?:^(?:import|export)\s[^;]*?from\s*|\bimport\(\s*)'((?:@[a-z0-9-]+\/)?[a-z0-9][^']*)'/gm,
    )) {
      const spec = match[1]!;
      if (spec.startsWith('node:')) continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return names;
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** Markdown links outside code: [text](target). */
function linksOf(file: string): string[] {
  const text = read(file)
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the documentation as a newcomer meets it', () => {
  for (const file of docFiles) {
    it(`${file}: every relative link and anchor lands`, () => {
      for (const link of linksOf(file).filter((l) => !/^[a-z]+:/.test(l))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : relative(root, join(root, dirname(file), path));
        expect(existsSync(join(root, target)), `${file} links to ${link}`).toBe(true);
        if (anchor !== undefined && statSync(join(root, target)).isFile() && target.endsWith('.md')) {
          expect([...anchorsOf(target)], `${file} links to ${link}`).toContain(anchor);
        }
      }
    });

    it(`${file}: every JSON block parses`, () => {
      for (const block of read(file).matchAll(/```json\n([\s\S]*?)```/g))
        expect(() => JSON.parse(block[1]!), block[1]).not.toThrow();
    });
  }

  it(`README.md stays within ${readmeBudgetBytes} bytes`, () => {
    expect(Buffer.byteLength(read('README.md'))).toBeLessThanOrEqual(readmeBudgetBytes);
  });

  it('says why each package the shipped code imports is there (docs/dependencies.md), each bundled, none declared for install', () => {
    const { dependencies, devDependencies } = JSON.parse(read('package.json')) as {
      dependencies?: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    // dist/ bundles them (scripts/build.mjs): the published package declares none, so it installs offline.
    expect(dependencies ?? {}).toEqual({});
    const table = read('docs/dependencies.md');
    for (const name of importedPackages(join(root, 'src'))) {
      expect(table, name).toContain(`\`${name}\``);
      expect(devDependencies[name], name).toBeDefined();
    }
  });
});

describe('links the program itself hands out', () => {
  it("the sandbox's docs_url names a page of this repository that exists", async () => {
    const { sandboxDocsPath, sandboxDocsUrl } = await import('../../../sandbox/src/sandbox-docs-url.js');
    expect(sandboxDocsUrl.endsWith(`/blob/main/${sandboxDocsPath}`)).toBe(true);
    expect(existsSync(join(root, sandboxDocsPath))).toBe(true);
  });
});
