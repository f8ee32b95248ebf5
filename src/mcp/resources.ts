import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { MailboxError } from '../errors.js';

/**
 * Presets and help topics as read-only resources, for hosts that let a user attach them to a
 * conversation. The tools stay the primary path: these are the same texts `help` returns.
 */

export interface PresetEntry {
  name: string;
  description: string;
}

export interface ResourceSources {
  helpTopics: () => readonly string[];
  readHelp: (topic: string) => Promise<string>;
  presets: () => Promise<readonly PresetEntry[]>;
  /** The preset's declaration as JSON text (variables, steps). */
  readPreset: (name: string) => Promise<string>;
}

export const presetUriPrefix = 'agent-mailbox://presets/';
export const helpUriPrefix = 'agent-mailbox://help/';

/** Registers `agent-mailbox://presets/<name>` and `agent-mailbox://help/<topic>` templates. */
export function registerResources(server: McpServer, sources: ResourceSources): void {
  server.registerResource(
    'presets',
    new ResourceTemplate(`${presetUriPrefix}{name}`, {
      list: async () => ({
        resources: (await sources.presets()).map((p) => ({
          uri: `${presetUriPrefix}${p.name}`,
          name: `preset ${p.name}`,
          description: p.description,
          mimeType: 'application/json',
        })),
      }),
      complete: { name: async () => (await sources.presets()).map((p) => p.name) },
    }),
    {
      title: 'jmap_request presets',
      description: 'Bundled JMAP request presets for jmap_request ops_file, with their variables.',
      mimeType: 'application/json',
    },
    async (uri, { name }) => textResource(uri.href, 'application/json', await sources.readPreset(single(name, 'preset'))),
  );

  server.registerResource(
    'help',
    new ResourceTemplate(`${helpUriPrefix}{topic}`, {
      list: () => ({
        resources: sources.helpTopics().map((topic) => ({
          uri: `${helpUriPrefix}${topic}`,
          name: `help ${topic}`,
          mimeType: 'text/markdown',
        })),
      }),
      complete: { topic: () => [...sources.helpTopics()] },
    }),
    {
      title: 'agent-mailbox help',
      description: 'Built-in documentation topics (the same text as the help tool).',
      mimeType: 'text/markdown',
    },
    async (uri, { topic }) => textResource(uri.href, 'text/markdown', await sources.readHelp(single(topic, 'help topic'))),
  );
}

function single(value: string | string[] | undefined, what: string): string {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) {
    throw new MailboxError({ code: 'invalid_input', message: `The resource URI names no ${what}.`, hint: 'List the resources to see valid URIs.' });
  }
  return decodeURIComponent(text);
}

function textResource(uri: string, mimeType: string, text: string): ReadResourceResult {
  return { contents: [{ uri, mimeType, text }] };
}
