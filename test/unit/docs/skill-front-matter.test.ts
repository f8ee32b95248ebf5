import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isCollection, parseDocument, visit } from 'yaml';

// SKILL.md's front matter must load in every skill loader, including the strict ones: YAML that a
// strict parser accepts, and block collections only (strictyaml-style loaders refuse flow style,
// such as `bins: [node]`). The Agent Skills fields keep their documented limits.
const skillFile = fileURLToPath(new URL('../../../skill/SKILL.md', import.meta.url));

/** The text between the opening and closing `---` lines, or undefined. */
function frontMatterOf(text: string): string | undefined {
  return /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1];
}

/** Problems a strict loader would have with this front matter. */
function strictProblems(yamlText: string): string[] {
  const doc = parseDocument(yamlText, { strict: true, prettyErrors: true, uniqueKeys: true });
  const problems = [...doc.errors, ...doc.warnings].map((e) => e.message);
  visit(doc, {
    Node(_key, node) {
      if (isCollection(node) && node.flow)
        problems.push(`flow-style collection at offset ${node.range?.[0] ?? '?'}: write it in block style`);
    },
  });
  return problems;
}

describe("SKILL.md's front matter", () => {
  const text = readFileSync(skillFile, 'utf8');
  const yamlText = frontMatterOf(text);

  it('parses with a strict YAML parser, in block style only', () => {
    expect(yamlText).toBeDefined();
    expect(strictProblems(yamlText!)).toEqual([]);
  });

  it('would catch the flow-style list it once had, and a duplicate key', () => {
    expect(strictProblems('metadata:\n  openclaw:\n    requires:\n      bins: [node]\n')).toEqual([
      expect.stringMatching(/^flow-style collection/),
    ]);
    expect(strictProblems('name: a\nname: b\n').length).toBeGreaterThan(0);
  });

  it('has the Agent Skills fields within their limits, named as the folder it is installed as', () => {
    const fields = parseDocument(yamlText!, { strict: true }).toJS() as Record<string, unknown>;
    // The README and SKILL.md install skill/ as `agent-mailbox`: loaders compare name and folder.
    expect(fields.name).toBe('agent-mailbox');
    expect(fields.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(typeof fields.description === 'string' && fields.description.length).toBeGreaterThan(0);
    expect((fields.description as string).length).toBeLessThanOrEqual(1024);
    expect((fields.compatibility as string).length).toBeLessThanOrEqual(500);
    expect(fields.license).toBe('MIT');
    expect(fields.metadata).toEqual({ openclaw: { requires: { bins: ['node'] } } });
  });
});
