import * as z from 'zod';
import { helpTopics, listHelpTopics, readHelpTopic } from '../help/index.js';
import { defineLazyOperation, inputErrorCodes, readsLocal, type AnyOperation } from './define-operation.js';
import { cliPathOf, spellingOfInput } from './cli-spelling.js';

/** The `help` entry; its tools topic comes from the table that holds it, handed in to avoid an import cycle. */
export function helpOperationOver(tools: () => readonly AnyOperation[]) {
  return defineLazyOperation({
    name: 'help',
    title: 'Help',
    description:
      'Built-in documentation: registering, every preset, raw JMAP, the daily watch, several inboxes, each error, security. Call it when unsure; needs no inbox.',
    schemas: () => ({
      input: z.object({
        topic: z
          .enum(helpTopics)
          .optional()
          .describe('Omit for the index of topics.')
          .register(inputErrorCodes, { code: 'help_topic_unknown' }),
      }),
      output: z.object({ topic: z.string(), text: z.string(), topics: z.array(z.string()) }),
    }),
    annotations: readsLocal,
    cli: { positional: 'topic' },
    // Both doors show the Markdown itself, not the JSON string that carries it.
    present: (result) => ({ text: result.text }),
    async run(input) {
      const topic = input.topic ?? 'overview';
      const text = await readHelpTopic(topic, { tools: summarizeOperations(tools()) });
      return { topic, text, topics: listHelpTopics() };
    },
  });
}

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
