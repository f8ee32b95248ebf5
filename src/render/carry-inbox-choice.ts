import type { NextStep } from '../errors.js';

/**
 * A suggested next call must name the inbox the caller used, or an agent would read the default inbox
 * (another inbox's mail at worst). Built once per door; per call it gives the adjuster of next steps.
 */
export function inboxChoiceCarrier(
  operations: readonly { name: string; input: { shape: object } }[],
): (credentialsDir: unknown, inbox?: unknown) => ((next: NextStep) => NextStep) | undefined {
  // Read on the first call that carries a choice: an entry's input schema may be built on first use.
  const takes = (key: string): Set<string> =>
    new Set(operations.filter((op) => key in op.input.shape).map((op) => op.name));
  let takesDir: Set<string> | undefined;
  let takesInbox: Set<string> | undefined;
  return (credentialsDir, inbox) => {
    const dir = typeof credentialsDir === 'string' && credentialsDir !== '' ? credentialsDir : undefined;
    const chosen = typeof inbox === 'string' && inbox !== '' ? inbox : undefined;
    if (dir === undefined && chosen === undefined) return undefined;
    return (next) => {
      const carried: Record<string, unknown> = {};
      if (
        dir !== undefined &&
        (takesDir ??= takes('credentials_dir')).has(next.operation) &&
        next.input?.['credentials_dir'] === undefined
      )
        carried['credentials_dir'] = dir;
      // A suggestion that already names an inbox (or a list the inbox is chosen from) keeps its own.
      if (
        chosen !== undefined &&
        (takesInbox ??= takes('inbox')).has(next.operation) &&
        next.input?.['inbox'] === undefined
      )
        carried['inbox'] = chosen;
      return Object.keys(carried).length === 0 ? next : { ...next, input: { ...next.input, ...carried } };
    };
  };
}
