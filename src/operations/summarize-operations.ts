import type * as z from 'zod';
import { cliPathOf, spellingOfInput } from './cli-spelling.js';
import type { AnyOperation } from './define-operation.js';

/** For `help tools`, SKILL.md and the README. `cliInputs`: also the operator-only flags, not hidden ones. */
export function summarizeOperations(ops: readonly AnyOperation[], options: { cliInputs?: boolean } = {}) {
  return ops.map((op) => ({
    name: op.name,
    cliCommand: cliPathOf(op).join(' '),
    title: op.title,
    description: op.description,
    annotations: op.annotations,
    inputs: Object.entries(options.cliInputs ? { ...op.input.shape, ...(op.cliInput?.shape ?? {}) } : op.input.shape)
      .filter(([name]) => !(options.cliInputs && op.cli?.hidden?.includes(name)))
      .map(([name, field]) => {
        const schema = field as z.ZodType;
        const spelled = spellingOfInput(op, name);
        const cliFlag = spelled.positional ? `[${name}]` : spelled.flag;
        return {
          name,
          cliFlag,
          required: !schema.safeParse(undefined).success,
          describe: schema.description ?? '',
          cliOnly: !(name in op.input.shape),
        };
      }),
  }));
}

export type ToolSummary = ReturnType<typeof summarizeOperations>[number];
