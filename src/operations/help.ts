import * as z from 'zod';
import { helpTopics, listHelpTopics, readHelpTopic } from '../help/index.js';
import { defineLazyOperation, inputErrorCodes, readsLocal, type AnyOperation } from './define-operation.js';
import { summarizeOperations } from './summarize-operations.js';

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
