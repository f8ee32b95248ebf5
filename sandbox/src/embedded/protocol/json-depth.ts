/**
 * The deepest nesting of arrays and objects in a parsed JSON value, walked without recursion and
 * stopping as soon as `limit` is passed: a body nested thousands deep must not overflow the stack
 * here, in a schema check or in JSON.stringify of an echo.
 */
export function exceedsJsonDepth(value: unknown, limit: number): boolean {
  const pending: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (pending.length) {
    const { node, depth } = pending.pop() as { node: unknown; depth: number };
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      pending.push({ node: child, depth: depth + 1 });
  }
  return false;
}
