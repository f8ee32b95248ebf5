import { join } from 'node:path';
import { MailboxError } from '../errors.js';
import { listPresets } from '../presets/load-preset.js';
import { packageRoot, readPackageFile } from '../package-root.js';
import { renderPresetsTopic } from './render-presets-topic.js';

/** Help topics are the skill's Markdown references, except `tools` (the table) and `presets` (presets/*.json). */

export const helpTopics = [
  'overview',
  'tools',
  'auth',
  'jmap',
  'presets',
  'watch',
  'multi_account',
  'troubleshooting',
  'security',
] as const;
export type HelpTopic = (typeof helpTopics)[number];

/** Structurally the operations table's ToolSummary (core does not import the table). */
export interface HelpToolSummary {
  name: string;
  title: string;
  description: string;
  inputs: { name: string; required: boolean; describe: string }[];
}

export function listHelpTopics(): string[] {
  return [...helpTopics];
}

export function helpReferencesDir(): string {
  return join(packageRoot(), 'skill', 'references');
}

/** The text of one topic; throws help_topic_unknown (listing the topics) for any other name. */
export async function readHelpTopic(
  topic: string,
  options: { tools?: readonly HelpToolSummary[] } = {},
): Promise<string> {
  const name = topic.trim().toLowerCase().replace(/-/g, '_');
  if (!(helpTopics as readonly string[]).includes(name))
    throw new MailboxError({
      code: 'help_topic_unknown',
      message: `There is no help topic "${topic}".`,
      hint: `Topics: ${helpTopics.join(', ')}.`,
      next: { operation: 'help', input: { topic: 'overview' } },
      details: { topics: [...helpTopics] },
    });
  if (name === 'presets') return renderPresetsTopic(await listPresets());
  if (name === 'tools') return renderToolsTopic(options.tools);
  // Topic files carry the markers of their generated blocks (test/unit/docs); a reader needs only the block.
  const text = await readPackageFile(join(helpReferencesDir(), `${name}.md`));
  return text.replace(/^<!-- generated:[a-z-]+:(start|end) -->\n/gm, '');
}

function renderToolsTopic(tools: readonly HelpToolSummary[] | undefined): string {
  if (!tools?.length)
    return '# Tools\n\nregister, jmap_request and help. Run help with topic "overview" for the workflow.\n';
  const lines = [
    '# Tools',
    '',
    'The same operations exist as MCP tools and as CLI subcommands (agent-mailbox <name> --<input-in-kebab-case>).',
    '',
  ];
  for (const tool of tools) {
    lines.push(`## ${tool.name}: ${tool.title}`, '', tool.description, '');
    for (const input of tool.inputs)
      lines.push(`- ${input.name}${input.required ? ' (required)' : ''}: ${input.describe}`);
    lines.push('');
  }
  return lines.join('\n');
}
