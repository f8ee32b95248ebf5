/**
 * The one shell quoter (crontab lines, wake commands, suggested command lines): one word for POSIX
 * sh, bare when it is plainly safe, otherwise in single quotes.
 */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_./:@=+,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
