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
      // Mail uses tables for layout, not data: read them as blocks, not as aligned columns.
      { selector: 'table', format: 'block' },
      { selector: 'tr', format: 'block' },
      { selector: 'td', format: 'block' },
      { selector: 'th', format: 'block' },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
    ],
  })
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
