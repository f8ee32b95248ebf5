import { toKebab, type CliSpellingLookup, type InputSpelling } from '../render/describe-next.js';
import type { AnyOperation } from './define-operation.js';

export function cliPathOf(op: AnyOperation): readonly string[] {
  return op.cli?.path ?? [op.name];
}

/** The one place that decides an input's CLI spelling: the commander program, help and next steps read it. */
export function spellingOfInput(op: AnyOperation, key: string): InputSpelling {
  return {
    flag: op.cli?.flagNames?.[key] ?? `--${toKebab(key)}`,
    positional: op.cli?.positional === key,
    repeatable: op.cli?.repeatable?.includes(key) ?? false,
  };
}

/** The lookup the renderer words CLI next steps with ('*': the first entry that has the input). */
export function cliSpellingOf(ops: readonly AnyOperation[]): CliSpellingLookup {
  const byName = new Map(ops.map((op) => [op.name, op]));
  return (name, key) => {
    const op = name === '*' ? ops.find((o) => key !== undefined && key in o.input.shape) : byName.get(name);
    if (!op) return undefined;
    const path = cliPathOf(op);
    return key === undefined ? { path } : { path, ...spellingOfInput(op, key) };
  };
}
