import type { ToolSummary } from './summarize-operations.js';

/**
 * Markdown for the tool/command list, generated from the table for `help tools`, SKILL.md and the
 * README, so none of them can drift from what the code accepts.
 */
export function renderToolDocs(tools: readonly ToolSummary[], style: 'mcp' | 'cli'): string {
  return tools
    .map((tool) => {
      const head =
        style === 'mcp'
          ? `### \`${tool.name}\` — ${tool.title}`
          : `### \`agent-mailbox ${tool.cliCommand}\` — ${tool.title}`;
      const inputs = tool.inputs.map((input) => {
        const name = style === 'mcp' ? input.name : input.cliFlag;
        return `- \`${name}\`${input.required ? ' (required)' : ''}: ${input.describe}`;
      });
      return [head, '', tool.description, '', ...inputs].join('\n');
    })
    .join('\n\n');
}
