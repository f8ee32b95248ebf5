import type { convert as Convert } from 'html-to-text';

// Loaded on the first HTML-only message: most mail has a text part.
let convert: typeof Convert | undefined;

/**
 * The plain-text body of an Email/get object fetched with fetchTextBodyValues: its textBody parts in
 * order, an HTML part (mail without a text alternative) turned into text with html-to-text.
 */
export async function bodyTextOf(email: Record<string, unknown>): Promise<{ text: string; isTruncated: boolean }> {
  const parts = (Array.isArray(email['textBody']) ? email['textBody'] : []) as Array<{
    partId?: unknown;
    type?: unknown;
  }>;
  const values = (email['bodyValues'] ?? {}) as Record<string, { value?: unknown; isTruncated?: unknown }>;
  const texts: string[] = [];
  let isTruncated = false;
  for (const part of parts) {
    const value = typeof part.partId === 'string' ? values[part.partId] : undefined;
    if (typeof value?.value !== 'string') continue;
    isTruncated ||= value.isTruncated === true;
    texts.push(part.type === 'text/html' ? await htmlAsText(value.value) : value.value);
  }
  return { text: texts.join('\n\n'), isTruncated };
}

async function htmlAsText(html: string): Promise<string> {
  convert ??= (await import('html-to-text')).convert;
  // Images (tracking pixels) are dropped; layout tables read as blocks; headings keep their case.
  const blocks = ['table', 'tr', 'td', 'th'].map((selector) => ({ selector, format: 'block' }));
  const headings = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
    selector,
    options: { uppercase: false },
  }));
  return convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }, ...blocks, ...headings] })
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
