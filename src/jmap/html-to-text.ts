import type { JmapResponse } from './jmap-types.js';

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** A plain-text rendering of HTML mail: enough to read it, not a layout engine. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|blockquote|pre|table)\s*>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<a\s[^>]*href\s*=\s*["']([^"']*)["'][^>]*>([\s\S]*?)<\/a\s*>/gi, '$2 ($1)')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
      if (code.startsWith('#x') || code.startsWith('#X')) return String.fromCodePoint(parseInt(code.slice(2), 16));
      if (code.startsWith('#')) return String.fromCodePoint(Number(code.slice(1)));
      return entities[code.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * For Emails whose text body is HTML (no text/plain alternative: RFC 8621 §4.1.4 puts the HTML
 * part in textBody then), adds `textFromHtml` next to the raw value. Returns one note per message.
 */
export function addTextFromHtml(response: JmapResponse): string[] {
  const notes: string[] = [];
  for (const [name, args] of response.methodResponses) {
    if (name !== 'Email/get' || !Array.isArray(args.list)) continue;
    for (const email of args.list as Record<string, unknown>[]) {
      const parts = Array.isArray(email.textBody) ? (email.textBody as Record<string, unknown>[]) : [];
      const values = (email.bodyValues ?? {}) as Record<string, Record<string, unknown>>;
      for (const part of parts) {
        const partId = typeof part.partId === 'string' ? part.partId : undefined;
        const value = partId ? values[partId] : undefined;
        if (part.type !== 'text/html' || !value || typeof value.value !== 'string') continue;
        value.textFromHtml = htmlToText(value.value);
        notes.push(`Message ${String(email.id)} has only an HTML body: bodyValues["${partId}"].textFromHtml is a text rendering made by this client.`);
      }
    }
  }
  return notes;
}
