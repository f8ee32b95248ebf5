/** Reading JMAP method responses out of a jmap_request result, wherever the steps put them. */

export type MethodResponse = [string, Record<string, unknown>, string];

/** Every `[name, args, callId]` invocation found under any `methodResponses` in `value`. */
export function methodResponsesIn(value: unknown): MethodResponse[] {
  const found: MethodResponse[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.methodResponses)) {
      for (const invocation of record.methodResponses) {
        if (Array.isArray(invocation) && typeof invocation[0] === 'string' && typeof invocation[1] === 'object') {
          found.push(invocation as MethodResponse);
        }
      }
    }
    Object.values(record).forEach(walk);
  };
  walk(value);
  return found;
}

/** Ids of the e-mails an Email/get or Email/query in the result returned, in order. */
export function emailIdsIn(value: unknown): string[] {
  const ids: string[] = [];
  for (const [name, args] of methodResponsesIn(value)) {
    if (name === 'Email/get' && Array.isArray(args.list)) {
      for (const email of args.list) {
        const id = (email as { id?: unknown }).id;
        if (typeof id === 'string' && !ids.includes(id)) ids.push(id);
      }
    }
    if (name === 'Email/query' && Array.isArray(args.ids)) {
      for (const id of args.ids) if (typeof id === 'string' && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}
