import type { z } from 'zod';
import { listHelpTopics, readHelpTopic } from '../help/index.js';
import { listPresets } from '../presets/load-preset.js';
import type { Operation } from '../operations/define-operation.js';
import { summarizeOperations } from '../operations/summarize-operations.js';
import type { ResourceSources } from './resources.js';

/** The real texts behind the resources: the same preset files and help topics the tools use. */
export function createResourceSources(operations: readonly Operation<z.ZodObject, z.ZodType>[]): ResourceSources {
  return {
    helpTopics: () => listHelpTopics(),
    readHelp: async (topic) =>
      listHelpTopics().includes(topic) ? readHelpTopic(topic, { tools: summarizeOperations(operations) }) : undefined,
    presets: async () => (await listPresets()).map(({ name, preset }) => ({ name, description: preset.description })),
    readPreset: async (name) => {
      const found = (await listPresets()).find((p) => p.name === name);
      return found ? JSON.stringify(found.preset, null, 2) : undefined;
    },
  };
}
