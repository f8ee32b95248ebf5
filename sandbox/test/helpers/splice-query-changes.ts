/**
 * What a client does with a /queryChanges answer (RFC 8620 §5.6): drop every removed id from its
 * cached results, then insert each added id at its index, lowest index first. A right answer
 * turns the old results into the new ones exactly.
 */
export function spliceQueryChanges(
  oldIds: readonly string[],
  removed: readonly string[],
  added: ReadonlyArray<{ id: string; index: number }>,
): string[] {
  const gone = new Set(removed);
  const ids = oldIds.filter((id) => !gone.has(id));
  for (const { id, index } of [...added].sort((a, b) => a.index - b.index)) ids.splice(index, 0, id);
  return ids;
}
