import type { z } from 'zod';
import { toKebab, type CliSpellingLookup } from '../render/describe-next.js';
import type { Operation } from './define-operation.js';

type AnyOperation = Operation<z.ZodObject, z.ZodType>;

/** How the CLI spells one input of an entry: the table's cli spec, else `--kebab-case` of the key. */
export interface InputSpelling {
  flag: string;
  positional: boolean;
  repeatable: boolean;
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
    const path = op.cli?.path ?? [op.name];
    return key === undefined ? { path } : { path, ...spellingOfInput(op, key) };
  };
}
