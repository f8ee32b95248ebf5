import type { HtmlVisibility, HtmlVisibilityOptions } from './hidden/analyse-html.js';
import type { PlainComparison } from './hidden/compare-plain-to-visible.js';
import type { HidingTechnique } from './hidden/hiding-technique.js';
import { htmlToText, prepareHtmlToText } from './html-to-text.js';
import { trimQuotedHistory } from './mail-text.js';
import type { Email } from './present-mail-views.js';

/** The body a message view shows: the visible HTML as text, or the text/plain part unless it says materially more. */

export interface MessageBody {
  text: string;
  fromHtml: boolean;
  trimmedLines: number;
  charsByTechnique: Partial<Record<HidingTechnique, number>>;
  /** Words the plain part says beyond the visible HTML, when it says substantially more. */
  plainExtraWords?: number;
  /** Styling the hidden-text detector cannot assess, by property: the text shown may hold text a person does not see. */
  unassessed: string[];
  /** SHOW_HIDDEN: the hidden text was appended to `text`. */
  hiddenAppended: boolean;
}

/** The detector's functions, loaded by the caller only for mail that has HTML. */
export interface BodyReaders {
  analyse: { analyseHtml(html: string, options?: HtmlVisibilityOptions): HtmlVisibility };
  comparePlainToVisible(plain: string, visibleText: string): PlainComparison;
  prepare(htmls: readonly string[]): Promise<void>;
  showHidden: boolean;
}

export async function readMessageBody(email: Email, readers: BodyReaders): Promise<MessageBody> {
  const values = (email.bodyValues ?? {}) as Record<string, { value?: unknown }>;
  const valueOf = (part: Email): string | undefined => {
    const value = typeof part.partId === 'string' ? values[part.partId]?.value : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const htmlParts = partsOf(email.htmlBody).filter((part) => part.type === 'text/html' && valueOf(part) !== undefined);
  const htmlIds = new Set(htmlParts.map((part) => part.partId));
  const htmls = htmlParts.map((part) => valueOf(part) ?? '');
  await Promise.all([readers.prepare(htmls), prepareHtmlToText('text/html')]);
  const seen = htmls.map((html) => readers.analyse.analyseHtml(html));
  const visibleByPart = new Map(htmlParts.map((part, i) => [part.partId, htmlToText(seen[i]?.visibleHtml ?? '')]));
  const textParts = partsOf(email.textBody);
  const plain = textParts
    .filter((part) => part.type !== 'text/html' && !htmlIds.has(part.partId))
    .map((part) => valueOf(part) ?? '')
    .join('\n\n');
  const comparison = plain.trim()
    ? readers.comparePlainToVisible(plain, seen.map((s) => s.visibleText).join('\n'))
    : undefined;
  const showHtml = comparison === undefined || comparison.saysMore;

  let trimmedLines = 0;
  const shown = showHtml
    ? [...visibleByPart.values()]
    : textParts.map((part) => {
        if (htmlIds.has(part.partId)) return visibleByPart.get(part.partId) ?? '';
        const trimmed = trimQuotedHistory(valueOf(part) ?? '');
        trimmedLines += trimmed.trimmedLines;
        return trimmed.text;
      });
  let text = shown.filter(Boolean).join('\n\n').trim();
  const hiddenText = seen
    .map((s) => s.hiddenText)
    .filter(Boolean)
    .join('\n')
    .trim();
  const hiddenPlain = comparison?.saysMore ? plain.trim() : '';
  let hiddenAppended = false;
  if (readers.showHidden && (hiddenText || hiddenPlain)) {
    hiddenAppended = true;
    if (hiddenText) text += `\n\n[Text in this mail that a person reading it does not see:]\n${hiddenText}`;
    if (hiddenPlain)
      text += `\n\n[The text/plain part, which a mail client showing the HTML does not show:]\n${hiddenPlain}`;
  }
  const charsByTechnique: Partial<Record<HidingTechnique, number>> = {};
  for (const s of seen)
    for (const [technique, n] of Object.entries(s.charsByTechnique) as [HidingTechnique, number][])
      charsByTechnique[technique] = (charsByTechnique[technique] ?? 0) + n;
  return {
    text,
    fromHtml: showHtml,
    trimmedLines,
    charsByTechnique,
    ...(comparison?.saysMore ? { plainExtraWords: comparison.extraWords } : {}),
    unassessed: [...new Set(seen.flatMap((s) => s.unassessed))],
    hiddenAppended,
  };
}

function partsOf(value: unknown): Email[] {
  return Array.isArray(value)
    ? (value as unknown[]).filter((p): p is Email => typeof p === 'object' && p !== null)
    : [];
}
