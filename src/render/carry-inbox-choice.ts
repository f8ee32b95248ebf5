import type { NextStep } from '../errors.js';

/**
 * A suggested next call must name the inbox the caller used. An agent that copies
 * "read_message …" without the credentials directory would read the default inbox instead (a
 * notFound at best, another inbox's mail at worst). Each front door builds this once for its
 * table; per call it gives the adjuster the one renderer applies to every next step of a result,
 * its presentation and an error.
 */
export function inboxChoiceCarrier(operations: readonly { name: string; input: { shape: object } }[]): (credentialsDir: unknown) => ((next: NextStep) => NextStep) | undefined {
  const takesDir = new Set(operations.filter((op) => 'credentials_dir' in op.input.shape).map((op) => op.name));
  return (credentialsDir) => {
    if (typeof credentialsDir !== 'string' || credentialsDir === '') return undefined;
    return (next) => {
      if (!takesDir.has(next.operation) || next.input?.['credentials_dir'] !== undefined) return next;
      return { ...next, input: { ...next.input, credentials_dir: credentialsDir } };
    };
  };
}
