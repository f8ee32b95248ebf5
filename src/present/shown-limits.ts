/** What one stranger-written header may take of what the model reads (a header section may hold 256 KiB). */
export const shownLimits = {
  nameChars: 200,
  addressChars: 254, // RFC 5321's path limit
  listingSubjectChars: 300,
  listingAddresses: 5,
  messageAddresses: 50,
} as const;

/** A display name as every view shows it, and as the display-name claim is judged: at most 200 characters. */
export function shownName(name: unknown): string {
  return clip(typeof name === 'string' ? name : '', shownLimits.nameChars);
}

/** The first `max` code points of `text`, with an ellipsis when there was more; reads at most 2×max UTF-16 units. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = [...text.slice(0, 2 * max)];
  if (points.length <= max && text.length <= 2 * max) return text;
  return `${points.slice(0, max).join('')}…`;
}
