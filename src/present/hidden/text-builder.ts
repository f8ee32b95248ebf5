/**
 * Plain text as a reader takes it in: whitespace runs read as one space, block boundaries and
 * <br> as line breaks. Used for the visible text (previews, comparisons) and the hidden text.
 */
export class TextBuilder {
  private readonly parts: string[] = [];
  private isAtLineStart = true;
  private hasPendingSpace = false;

  /** Appends text; returns it as appended (whitespace collapsed, trimmed), '' when it was only whitespace. */
  append(raw: string): string {
    const text = raw.replace(/\s+/g, ' ');
    const core = text.trim();
    if (core === '') {
      if (!this.isAtLineStart && text !== '') this.hasPendingSpace = true;
      return '';
    }
    if (!this.isAtLineStart && (this.hasPendingSpace || text.startsWith(' '))) this.parts.push(' ');
    this.parts.push(core);
    this.isAtLineStart = false;
    this.hasPendingSpace = text.endsWith(' ');
    return core;
  }

  /** Ends the current line, if anything is on it. */
  breakLine(): void {
    if (!this.isAtLineStart) this.parts.push('\n');
    this.isAtLineStart = true;
    this.hasPendingSpace = false;
  }

  toString(): string {
    return this.parts.join('').trim();
  }
}
