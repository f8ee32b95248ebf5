import { convert } from 'html-to-text';

/**
 * HTML mail as text for a reader. `html-to-text` (maintained, used widely) handles what a regex
 * cannot: nested tables, entities, <style>/<script>, whitespace. Tracking pixels and layout-only
 * images are dropped; link targets are kept once, after their text, because an agent may need them.
 */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true, ignoreHref: false } },
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
    ],
  })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
