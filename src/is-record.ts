/** A JSON object: what a record field of a JMAP argument, an answer or a stored file must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
