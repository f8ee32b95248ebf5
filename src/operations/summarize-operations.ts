import type { z } from 'zod';
import { cliPathOf, spellingOfInput } from './cli-spelling.js';
import type { Operation } from './define-operation.js';

/** A tool as the help text and generated docs describe it. */
export interface ToolSummary {
  name: string;
  /** The CLI command words, e.g. `watch status`. */
  cliCommand: string;
  title: string;
  description: string;
  inputs: { name: string; cliFlag: string; required: boolean; describe: string }[];
}

/** Summarises table entries for `help tools`, SKILL.md and the README (callers pick the entries an agent can reach). */
export function summarizeOperations(ops: readonly Operation<z.ZodObject, z.ZodType>[]): ToolSummary[] {
  return ops.map((op) => ({
    name: op.name,
    cliCommand: cliPathOf(op).join(' '),
    title: op.title,
    description: op.description,
    inputs: Object.entries(op.input.shape).map(([name, field]) => {
      const schema = field as z.ZodType;
      const spelled = spellingOfInput(op, name);
      const cliFlag = spelled.positional ? `[${name}]` : spelled.flag;
      return { name, cliFlag, required: !schema.safeParse(undefined).success, describe: schema.description ?? '' };
    }),
  }));
}
