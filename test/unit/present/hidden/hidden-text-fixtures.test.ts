import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type HtmlVisibility } from '../../../../src/present/hidden/analyse-html.js';
import { hidingTechniques } from '../../../fixtures/hidden-text/hiding-techniques.js';
import { see } from './see-html.js';

const ordinaryRoot = join(import.meta.dirname, '../../../fixtures/hidden-text/ordinary');

/** Every ordinary mail, with the text it hides on purpose (a preheader, a message id). */
function ordinaryMails(): { name: string; html: string; expectedHidden: string[]; isRendered: boolean }[] {
  return ['hand', 'rendered'].flatMap((folder) => {
    const dir = join(ordinaryRoot, folder);
    const manifest = JSON.parse(readFileSync(join(dir, 'expected-hidden.json'), 'utf8')) as Record<string, string[]>;
    return readdirSync(dir)
      .filter((file) => file.endsWith('.html'))
      .sort()
      .map((file) => ({
        name: `${folder}/${file}`,
        html: readFileSync(join(dir, file), 'utf8'),
        expectedHidden: manifest[file] ?? [],
        isRendered: folder === 'rendered',
      }));
  });
}

/**
 * Characters reported hidden beyond what the mail hides on purpose (page titles and comments are
 * not shown text, and are left out as the message views leave them out).
 */
function unexpectedHiddenChars(seen: HtmlVisibility, expected: readonly string[]): number {
  const counted = Object.entries(seen.charsByTechnique)
    .filter(([technique]) => technique !== 'title' && technique !== 'comment' && technique !== 'invisible-characters')
    .reduce((sum, [, chars]) => sum + (chars ?? 0), 0);
  const intended = expected
    .filter((text) => seen.hiddenText.includes(text))
    .reduce((sum, text) => sum + text.replace(/\s/g, '').length, 0);
  return counted - intended;
}

/** Techniques the detector does not judge and must name; every other one it must report hidden. */
const flaggedByDesign = new Set([
  'clip-path path()',
  'mask-image gradient to transparent',
  '-webkit-mask',
  'perspective with translateZ',
  'matrix3d collapse',
  'filter: brightness(0) on black',
  'relative colour with alpha 0',
  '::first-line font-size 0',
  'a white box laid over the text',
  'a box pulled up over the text by a negative margin',
  'canvas fallback text',
  'video fallback text',
  'mso-hide:all',
  'backdrop-filter over the text',
  'animation to opacity 0',
  '-webkit-line-clamp one line',
  'white text under a white-fallback image',
  'a one-line box of fixed height cutting off what follows',
]);

describe('hiding techniques', () => {
  it('catches or flags every technique of the fixture set', async () => {
    const outcomes: { name: string; outcome: 'caught' | 'flagged' | 'missed'; detail: string }[] = [];
    for (const { name, html } of hidingTechniques) {
      const seen = await see(html);
      const isCaught = seen.hiddenText.includes('zebrafish') && !seen.visibleText.includes('zebrafish');
      const outcome = isCaught ? 'caught' : seen.unassessed.length > 0 ? 'flagged' : 'missed';
      outcomes.push({ name, outcome, detail: isCaught ? seen.techniques.join(', ') : seen.unassessed.join('; ') });
    }
    const count = (o: string): number => outcomes.filter((x) => x.outcome === o).length;
    console.log(
      `hidden-text fixtures: ${outcomes.length} techniques, ${count('caught')} caught, ${count('flagged')} flagged, ${count('missed')} missed\n` +
        outcomes.map((o) => `  ${o.outcome.padEnd(7)} ${o.name}: ${o.detail}`).join('\n'),
    );
    expect(outcomes.length).toBeGreaterThanOrEqual(40);
    expect(outcomes.filter((o) => o.outcome === 'missed')).toEqual([]);
    expect(outcomes.filter((o) => o.outcome !== (flaggedByDesign.has(o.name) ? 'flagged' : 'caught'))).toEqual([]);
  });
});

describe('ordinary mail', () => {
  it('marks at most 5% of ordinary mails as unassessable or reports their visible text hidden', async () => {
    const mails = ordinaryMails();
    const results = [];
    for (const mail of mails) {
      const seen = await see(mail.html);
      const hiddenChars = unexpectedHiddenChars(seen, mail.expectedHidden);
      results.push({
        name: mail.name,
        isRendered: mail.isRendered,
        unassessed: seen.unassessed,
        hiddenChars,
        isFalsePositive: seen.unassessed.length > 0 || hiddenChars > 0,
      });
    }
    const falsePositives = results.filter((r) => r.isFalsePositive);
    console.log(
      `ordinary mail: ${results.length} mails (${results.filter((r) => r.isRendered).length} rendered by MJML/Inky), ${falsePositives.length} false positives (${((100 * falsePositives.length) / results.length).toFixed(1)}%)\n` +
        falsePositives
          .map(
            (r) =>
              `  ${r.name}: ${r.unassessed.join('; ')}${r.hiddenChars > 0 ? ` ${r.hiddenChars} visible chars reported hidden` : ''}`,
          )
          .join('\n'),
    );
    expect(results.length).toBeGreaterThanOrEqual(30);
    expect(results.filter((r) => r.isRendered).length).toBeGreaterThanOrEqual(15);
    expect(falsePositives.length / results.length).toBeLessThanOrEqual(0.05);
  });

  it('reports each preheader (and what else a mail hides on purpose) as hidden text', async () => {
    for (const mail of ordinaryMails()) {
      const seen = await see(mail.html);
      for (const text of mail.expectedHidden) expect(seen.hiddenText, mail.name).toContain(text);
    }
  });
});
