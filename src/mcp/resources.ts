import {
  ResourceNotFoundError,
  ResourceTemplate,
  type McpServer,
  type ReadResourceResult,
} from '@modelcontextprotocol/server';

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
  /** The topic's Markdown; undefined when there is no such topic. */
  readHelp: (topic: string) => Promise<string | undefined>;
  presets: () => Promise<readonly PresetEntry[]>;
  /** The preset's declaration as JSON text (variables, steps); undefined when there is no such preset. */
  readPreset: (name: string) => Promise<string | undefined>;
}

export const presetUriPrefix = 'agent-mailbox://presets/';
export const helpUriPrefix = 'agent-mailbox://help/';

/** A resource's title: each one its own, so a host's picker can tell fourteen presets apart. */
export const presetTitle = (name: string): string => `Preset ${name} (jmap_request)`;
export const helpTitle = (topic: string): string => `Help: ${topic.replace(/_/g, ' ')}`;

/** Registers `agent-mailbox://presets/<name>` and `agent-mailbox://help/<topic>` templates. */
export function registerResources(server: McpServer, sources: ResourceSources): void {
  const presetNames = async (): Promise<string[]> => (await sources.presets()).map((p) => p.name);
  server.registerResource(
    'presets',
    new ResourceTemplate(`${presetUriPrefix}{name}`, {
      list: async () => ({
        resources: (await sources.presets()).map((p) => ({
          uri: `${presetUriPrefix}${p.name}`,
          name: `preset ${p.name}`,
          title: presetTitle(p.name),
          description: p.description,
          mimeType: 'application/json',
        })),
      }),
      complete: { name: async (typed) => startingWith(await presetNames(), typed) },
    }),
    {
      title: 'jmap_request presets',
      description: 'Bundled JMAP request presets for jmap_request ops_file, with their variables.',
      mimeType: 'application/json',
    },
    async (uri, { name }) =>
      textResource(
        uri.href,
        'application/json',
        await sources.readPreset(single(name)),
        'There is no such preset: list the resources, or call help with topic "presets".',
      ),
  );

  server.registerResource(
    'help',
    new ResourceTemplate(`${helpUriPrefix}{topic}`, {
      list: () => ({
        resources: sources.helpTopics().map((topic) => ({
          uri: `${helpUriPrefix}${topic}`,
          name: `help ${topic}`,
          title: helpTitle(topic),
          mimeType: 'text/markdown',
        })),
      }),
      complete: { topic: (typed) => startingWith(sources.helpTopics(), typed) },
    }),
    {
      title: 'agent-mailbox help',
      description: 'Built-in documentation topics (the same text as the help tool).',
      mimeType: 'text/markdown',
    },
    async (uri, { topic }) =>
      textResource(
        uri.href,
        'text/markdown',
        await sources.readHelp(single(topic)),
        `There is no such help topic; the topics are ${sources.helpTopics().join(', ')}.`,
      ),
  );
}

/** What completion offers for what was typed so far: the names it begins, in their own order. */
export function startingWith(names: readonly string[], typed: string): string[] {
  const prefix = typed.toLowerCase();
  return names.filter((name) => name.toLowerCase().startsWith(prefix));
}

function single(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value[0] : value;
  try {
    return decodeURIComponent(text ?? '');
  } catch {
    return text ?? '';
  }
}

/** A URI the template matched but nothing answers is "resource not found" (see resource-not-found-code.ts), not an internal error. */
function textResource(uri: string, mimeType: string, text: string | undefined, missing: string): ReadResourceResult {
  if (text === undefined) throw new ResourceNotFoundError(uri, `Resource not found: ${uri}. ${missing}`);
  return { contents: [{ uri, mimeType, text }] };
}
