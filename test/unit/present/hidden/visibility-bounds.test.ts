import { describe, expect, it } from 'vitest';
import {
  analyseHtml,
  prepareHtmlVisibility,
  type HtmlVisibility,
  type HtmlVisibilityOptions,
} from '../../../../src/present/hidden/analyse-html.js';

const fiveMegabytes = 5 * 1024 * 1024;
const wide = { maxBytes: 8 * 1024 * 1024 };

function fill(unit: string, bytes = fiveMegabytes): string {
  return unit.repeat(Math.ceil(bytes / unit.length));
}

/**
 * Runs one analysis and returns it with its wall time. The bound asserted below is not a speed
 * claim (the benchmark has the figures): it is far above the ~1 s these take on a busy 2-core
 * machine and far below the minutes a quadratic or exponential path took before it was closed.
 */
async function timed(
  html: string,
  options: HtmlVisibilityOptions = {},
): Promise<{ result: HtmlVisibility; ms: number }> {
  const started = performance.now();
  await prepareHtmlVisibility(html);
  const result = analyseHtml(html, options);
  return { result, ms: performance.now() - started };
}

const bound = 15_000;

describe('hostile 5 MB mail stays cheap', () => {
  it('reads the first MiB of 5 MB of nested <div>s, flattening them past 512 levels', async () => {
    const { result, ms } = await timed(fill('<div>'));
    expect(result.truncated).toBe(true);
    expect(result.limitsReached).toEqual(expect.arrayContaining(['depth-flattened', 'nodes-capped']));
    expect(ms).toBeLessThan(bound);
  });

  it('keeps stray end tags under deep nesting linear (htmlparser2 scans its stack for each one)', async () => {
    const { result, ms } = await timed('<div>'.repeat(500_000) + fill('</x>', fiveMegabytes - 2_500_000), wide);
    expect(result.truncated).toBe(false);
    expect(ms).toBeLessThan(bound);
  });

  it('caps style sheet text and rules', async () => {
    const { result, ms } = await timed(
      `<style>${fill('.a .b .c .d .e .f .g .h .i .j .k{display:none}')}</style>${'<p class="k">x</p>'.repeat(1000)}`,
      wide,
    );
    expect(result.limitsReached).toEqual(expect.arrayContaining(['style-text-capped', 'style-rules-capped']));
    expect(ms).toBeLessThan(bound);
  });

  it('bounds nested blocks in a style sheet', async () => {
    const { ms } = await timed(`<style>${fill('a{', fiveMegabytes)}</style><p>x</p>`, wide);
    expect(ms).toBeLessThan(bound);
  });

  it('charges :has(), sibling and descendant chains and stops matching when the budget is spent', async () => {
    const css =
      '*:has(*){color:red} p ~ p ~ p{color:blue} * * * * * * * * * * * *{color:green} li:nth-last-child(2n+1){color:#fff}'.repeat(
        50,
      );
    const { result, ms } = await timed(
      `<style>${css}</style>${'<div>'.repeat(500)}${fill('<p>x</p><li>y</li>', 4 * 1024 * 1024)}`,
      wide,
    );
    expect(result.limitsReached).toContain('selector-budget-spent');
    expect(ms).toBeLessThan(bound);
  });

  it('answers structural pseudo-classes in constant time over 45,000 siblings', async () => {
    const { result, ms } = await timed(
      `<style>li:nth-child(2n){display:none} li:nth-last-of-type(1){color:#fff}</style><ul>${'<li>x</li>'.repeat(45_001)}</ul>`,
      wide,
    );
    expect(result.limitsReached).toEqual([]);
    expect(result.charsByTechnique).toEqual({ 'display:none': 22_500, 'color-matches-background': 1 });
    expect(ms).toBeLessThan(bound);
  });

  it('resolves doubling custom properties once per parent and within a character budget', async () => {
    const chain = Array.from({ length: 30 }, (_, i) => `--v${i + 1}:var(--v${i}) var(--v${i})`).join(';');
    const shared = await timed(
      `<style>p{--v0:xxxxxxxxxxxxxxxx;${chain};color:var(--v30)}</style>${fill('<p>x</p>', 4 * 1024 * 1024)}`,
      wide,
    );
    expect(shared.ms).toBeLessThan(bound);
    const count = Math.ceil(fiveMegabytes / chain.length);
    const distinct = await timed(
      Array.from(
        { length: count },
        (_, i) => `<p style="--v0:${String(i).padStart(16, 'x')};${chain};color:var(--v30)">x</p>`,
      ).join(''),
      wide,
    );
    expect(distinct.result.limitsReached).toContain('variables-budget-spent');
    expect(distinct.ms).toBeLessThan(bound);
  });

  it('handles 5 MB of one attribute, one text and one comment', async () => {
    for (const html of [
      `<p class="${fill('a ')}" style="${fill('color:red;', 1024 * 1024)}">x</p>`,
      fill('lorem ipsum '),
      `<!--${fill('x')}-->`,
    ]) {
      const { ms } = await timed(html, wide);
      expect(ms).toBeLessThan(bound);
    }
  });
});

describe('random HTML', () => {
  // A small deterministic generator (mulberry32), so a failure names a seed that reproduces it.
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const pieces = [
    '<div>',
    '</div>',
    '<p class="x">',
    '</p>',
    '<span style="',
    '">',
    '<style>',
    '</style>',
    '<!--',
    '-->',
    '<table><tr><td bgcolor="',
    '</td></tr></table>',
    'display:none',
    'color:#fff',
    'font-size:0',
    ';',
    '{',
    '}',
    '.x',
    '@media (max-width:600px){',
    'var(--a',
    ')',
    '--a:',
    '"',
    "'",
    '<',
    '>',
    '&amp;',
    '&#0;',
    '\u200b',
    '\u202e',
    '\ud800',
    'text ',
    'calc(',
    '-9999px',
    'rgb(',
    '%',
    '!important',
    '<template>',
    '<details>',
    '<br>',
    '<font color="',
    '<![CDATA[',
    '</',
    '\0',
  ];

  it('never throws and always returns a consistent report', async () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const html = Array.from(
        { length: 1 + Math.floor(next() * 120) },
        () => pieces[Math.floor(next() * pieces.length)],
      ).join('');
      await prepareHtmlVisibility(html);
      const result = analyseHtml(html);
      expect(result.hiddenChars, `seed ${seed}`).toBe(
        Object.values(result.charsByTechnique).reduce((a, b) => a + b, 0),
      );
      expect(result.techniques.length, `seed ${seed}`).toBe(Object.keys(result.charsByTechnique).length);
      expect(typeof result.visibleHtml, `seed ${seed}`).toBe('string');
    }
  });
});
