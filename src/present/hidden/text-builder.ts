/**
 * Plain text as a reader takes it in: whitespace runs read as one space, block boundaries and
 * <br> as line breaks. Used for the visible text (previews, comparisons) and the hidden text.
 */
export class TextBuilder {
  private readonly parts: string[] = [];
  /** What comes before the next text: a line break (or nothing, at the start), a space, or nothing. */
  private gap: 'line' | 'space' | 'none' = 'line';

  /** Appends text; returns it as appended (whitespace collapsed, trimmed), '' when it was only whitespace. */
  append(raw: string): string {
    const text = raw.replace(/\s+/g, ' ');
    const core = text.trim();
    if (core === '') {
      if (this.gap === 'none' && text !== '') this.gap = 'space';
      return '';
    }
    if (this.gap === 'space' || (this.gap === 'none' && text.startsWith(' '))) this.parts.push(' ');
    this.parts.push(core);
    this.gap = text.endsWith(' ') ? 'space' : 'none';
    return core;
  }

  /** Ends the current line, if anything is on it. */
  breakLine(): void {
    if (this.gap !== 'line') this.parts.push('\n');
    this.gap = 'line';
  }

  toString(): string {
    // Only a line break can end the parts; none can start them.
    return this.parts.join('').trimEnd();
  }
}
