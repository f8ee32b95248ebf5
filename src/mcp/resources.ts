import {
  ResourceNotFoundError,
  ResourceTemplate,
  type McpServer,
  type ReadResourceResult,
} from '@modelcontextprotocol/server';
import { listHelpTopics, readHelpTopic } from '../help/index.js';
import { listPresets } from '../presets/load-preset.js';
import type { AnyOperation } from '../operations/define-operation.js';
import { summarizeOperations } from '../operations/help.js';

/** Presets and help topics as read-only resources a user can attach: the same texts `help` returns. */

export interface ResourceSources {
  helpTopics: () => readonly string[];
  /** The topic's Markdown; undefined when there is no such topic. */
  readHelp: (topic: string) => Promise<string | undefined>;
  presets: () => Promise<readonly { name: string; description: string }[]>;
  /** The preset's declaration as JSON text (variables, steps); undefined when there is no such preset. */
  readPreset: (name: string) => Promise<string | undefined>;
}

export function createResourceSources(operations: readonly AnyOperation[]): ResourceSources {
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

export function registerResources(server: McpServer, sources: ResourceSources): void {
  registerTemplate(server, {
    kind: 'presets',
    variable: 'name',
    // Each resource titled its own way, so a host's picker can tell fourteen presets apart.
    entries: async () =>
      (await sources.presets()).map((p) => ({
        key: p.name,
        name: `preset ${p.name}`,
        title: `Preset ${p.name} (jmap_request)`,
        description: p.description,
      })),
    mimeType: 'application/json',
    title: 'jmap_request presets',
    description: 'Bundled JMAP request presets for jmap_request ops_file, with their variables.',
    read: sources.readPreset,
    missing: () => 'There is no such preset: list the resources, or call help with topic "presets".',
  });
  registerTemplate(server, {
    kind: 'help',
    variable: 'topic',
    entries: async () =>
      sources
        .helpTopics()
        .map((topic) => ({ key: topic, name: `help ${topic}`, title: `Help: ${topic.replace(/_/g, ' ')}` })),
    mimeType: 'text/markdown',
    title: 'agent-mailbox help',
    description: 'Built-in documentation topics (the same text as the help tool).',
    read: sources.readHelp,
    missing: () => `There is no such help topic; the topics are ${sources.helpTopics().join(', ')}.`,
  });
}

function registerTemplate(
  server: McpServer,
  template: {
    kind: string;
    variable: string;
    entries: () => Promise<{ key: string; name: string; title: string; description?: string }[]>;
    mimeType: string;
    title: string;
    description: string;
    read: (key: string) => Promise<string | undefined>;
    missing: () => string;
  },
): void {
  const prefix = `agent-mailbox://${template.kind}/`;
  const { mimeType } = template;
  server.registerResource(
    template.kind,
    new ResourceTemplate(`${prefix}{${template.variable}}`, {
      list: async () => ({
        resources: (await template.entries()).map(({ key, name, title, description }) => ({
          uri: `${prefix}${key}`,
          name,
          title,
          ...(description !== undefined ? { description } : {}),
          mimeType,
        })),
      }),
      complete: {
        // What was typed so far completes to the names it begins, in their own order.
        [template.variable]: async (typed: string) =>
          (await template.entries())
            .map((entry) => entry.key)
            .filter((key) => key.toLowerCase().startsWith(typed.toLowerCase())),
      },
    }),
    { title: template.title, description: template.description, mimeType },
    async (uri, variables) => {
      const text = await template.read(single(variables[template.variable]));
      // A URI the template matched but nothing answers is "resource not found" (its code per era: main.ts).
      if (text === undefined)
        throw new ResourceNotFoundError(uri.href, `Resource not found: ${uri.href}. ${template.missing()}`);
      return { contents: [{ uri: uri.href, mimeType, text }] } satisfies ReadResourceResult;
    },
  );
}

function single(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value[0] : value;
  try {
    return decodeURIComponent(text ?? '');
  } catch {
    return text ?? '';
  }
}
