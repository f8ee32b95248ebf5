import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { listPresets } from '../../../src/presets/load-preset.js';
import { renderPresetsTopic } from '../../../src/help/render-presets-topic.js';
import { renderError } from '../../../src/render/render-error.js';
import { jmapResultKeys } from './jmap-result-keys.js';

// The prose around the generated blocks, checked against what the code does. Each claim below was
// once written in these docs while the code did otherwise; the code is tested to do what the
// generated text says (test/integration/result-keys-documented.test.ts, wait-for-mail.test.ts).
const root = fileURLToPath(new URL('../../../', import.meta.url));
const markdown = (dir: string): string[] =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(dir, f));
const docFiles = ['README.md', 'skill/SKILL.md', ...markdown('docs'), ...markdown('skill/references')];
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

/** Claims the code contradicts, with the code's side of it. */
const contradicted = [
  {
    claim: /jmap_request`?\s+returns[^.]*the\s+final\s+`?request/i,
    because: 'jmap_request returns the request only with dry_run or echo_request, and its default output is text',
    once: '`jmap_request` returns `ok`, a one-line `summary`, the final `request` and the JMAP `response`.',
  },
  {
    claim: /wait_for_mail[^]{0,400}?without\s+one,\s+after\s+the\s+call\s+started/i,
    because:
      'before list_new has ever run, wait_for_mail counts the unread Inbox mail already there (presets/wait_for_mail.json)',
    once: '`wait_for_mail` (`TIMEOUT_SECONDS`, optional `FROM`, `THREAD_ID`) is "send, then wait for the\nanswer" in one call: it returns as soon as mail from others arrives after the `list_new` cursor (or,\nwithout one, after the call started), in `list_new`\'s shape',
  },
  {
    claim: /Exit codes: `0` success, `1` failure[^|]*`2` wrong usage\.(?![^]{0,80}`3`)/,
    because: "the CLI also exits 3 for a refusal by the operator's policy (src/render/render-error.ts)",
    once: 'Exit codes: `0` success, `1` failure (the output says what failed and what to do next),\n`2` wrong usage. Nothing prompts for input.',
  },
];

describe('what the docs claim', () => {
  it('would catch each claim as it was once written', () => {
    for (const { claim, once } of contradicted) expect(once).toMatch(claim);
  });

  for (const file of docFiles) {
    it(`${file} makes no claim the code contradicts, cites no issue a reader cannot open, and no "design card"`, () => {
      const text = read(file);
      for (const { claim, because } of contradicted) expect(text, because).not.toMatch(claim);
      expect(text).not.toMatch(/\bissues? \d+\b/i);
      expect(text).not.toMatch(/design card/i);
    });
  }

  it('the generated presets topic says what wait_for_mail counts before list_new has run', async () => {
    const topic = renderPresetsTopic(await listPresets());
    expect(topic).toMatch(/before list_new has ever run, unread Inbox mail from others counts as new too/);
  });

  it('documents the request key of jmap_request as shown only with dry_run or echo_request', () => {
    expect(jmapResultKeys.request).toMatch(/^only with `dry_run` or `echo_request`/);
  });

  it("SKILL.md's error JSON names only keys the CLI prints, and the ones agents branch on", () => {
    const line = /`(\{"error": \{[^`]*\}\})`/.exec(read('skill/SKILL.md'))?.[1];
    expect(line).toBeDefined();
    const named = [...line!.matchAll(/"([a-zA-Z]+)"/g)].map((m) => m[1]!).filter((key) => key !== 'error');
    expect(named.slice(0, 3)).toEqual(['code', 'message', 'hint']);
    const error = new MailboxError({
      code: 'credentials_missing',
      message: 'm',
      hint: 'h',
      next: { operation: 'register' },
      details: { credentialsDir: '/x' },
    });
    const printed = Object.keys(renderError(error, 'cli').structured.error);
    for (const key of named) expect(printed).toContain(key);
  });
});
