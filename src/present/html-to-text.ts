import type { convert as Convert } from 'html-to-text';

// html-to-text costs ~40 ms to load and most mail has a text part: loaded only when an answer holds HTML.
let convert: typeof Convert | undefined;

/** Loads the converter when a JMAP response carries an HTML part; cheap once loaded. */
export async function prepareHtmlToText(response: unknown): Promise<void> {
  if (convert || !mentionsHtml(response)) return;
  ({ convert } = await import('html-to-text'));
}

/** Whether "text/html" appears in any key or string of a JSON value; walked, not serialised into a large string. */
export function mentionsHtml(response: unknown): boolean {
  const pending: unknown[] = [response];
  while (pending.length) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('text/html')) return true;
    } else if (Array.isArray(value)) {
      for (const entry of value) pending.push(entry);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, entry] of Object.entries(value)) {
        if (key.includes('text/html')) return true;
        pending.push(entry);
      }
    }
  }
  return false;
}

/** HTML mail as text for a reader: images dropped, link targets kept once after their text (an agent may need them). */
export function htmlToText(html: string): string {
  // Every reader loads the converter first; an HTML part without a text/html mention cannot reach here.
  if (!convert) throw new Error('htmlToText called before prepareHtmlToText');
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
