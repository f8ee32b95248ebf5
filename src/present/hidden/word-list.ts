/** A list of names written as words, whitespace between them: long lists of CSS and HTML names stay readable. */
export function words([text]: TemplateStringsArray): string[] {
  return (text ?? '').trim().split(/\s+/);
}
