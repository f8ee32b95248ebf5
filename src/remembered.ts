/**
 * A pure function of a short text, remembered by that text: a long session meets the same domains, list entries
 * and session URLs on every call. Facts, never verdicts; bounded in count (emptied when full) and in length, since
 * mail from strangers names texts without end (no domain, address or origin is longer).
 */
export function rememberedByText<T>(work: (text: string) => T): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    if (text.length > 320) return work(text);
    if (known.has(text)) return known.get(text) as T;
    const found = work(text);
    if (known.size >= 4_096) known.clear();
    known.set(text, found);
    return found;
  };
}
