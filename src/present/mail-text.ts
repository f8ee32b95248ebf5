/** Text-body shaping: the quoted history a mail client would fold, the quote block below a reply. */

// "On Mon, 1 Jan 2026, Ana <ana@x> wrote:" and its common variants, as the line before a quote.
const attributionLine =
  /^(on .{4,200} wrote:|.{2,120} (schrieb|a écrit|escribió) .{0,80}:|-{2,} ?original message ?-{2,})\s*$/i;

export interface TrimmedBody {
  text: string;
  /** Lines of quoted history left out (0 when none). */
  trimmedLines: number;
}

/** Folds the trailing quoted history (">" lines and their attribution) of a plain-text body. */
export function trimQuotedHistory(body: string): TrimmedBody {
  const lines = body.replace(/\r\n/g, '\n').split('\n');
  let end = lines.length;
  while (end > 0 && (lines[end - 1] ?? '').trim() === '') end--;
  let start = end;
  while (start > 0 && /^\s*>/.test(lines[start - 1] ?? '')) start--;
  if (start === end) return { text: body, trimmedLines: 0 };
  let cut = start;
  while (cut > 0 && (lines[cut - 1] ?? '').trim() === '') cut--;
  if (cut > 0 && attributionLine.test((lines[cut - 1] ?? '').trim())) cut--;
  // A body that is nothing but a quote is shown whole: there is nothing else to read.
  if (lines.slice(0, cut).join('').trim() === '') return { text: body, trimmedLines: 0 };
  return { text: lines.slice(0, cut).join('\n').trimEnd(), trimmedLines: end - cut };
}

/** The original below a reply, in the usual form: an attribution line, then each line after "> ". */
export function quoteOriginal(original: { fromLabel: string; date?: string; text: string }): string {
  const when = original.date ? `On ${original.date}, ` : '';
  const quoted = original.text
    .replace(/\r\n/g, '\n')
    .trimEnd()
    .split('\n')
    .map((line) => (line.startsWith('>') ? `>${line}` : `> ${line}`))
    .join('\n');
  return `${when}${original.fromLabel} wrote:\n${quoted}`;
}

/** A window of at most `maxChars` characters from `offset`, and how much is left after it. */
export function windowOf(text: string, offset: number, maxChars: number): { text: string; rest: number } {
  const chars = [...text];
  const slice = chars.slice(offset, offset + maxChars);
  return { text: slice.join(''), rest: Math.max(0, chars.length - offset - slice.length) };
}
