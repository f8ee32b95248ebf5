import type { OperationAnnotations } from './define-operation.js';
import type { ToolSummary } from './summarize-operations.js';

/**
 * Markdown for the tool/command lists, generated from the table for `help tools`, SKILL.md, the
 * README and docs/reference.md, so none of them can drift from what the code accepts and declares.
 */

/** The annotations as a reader weighs them: may it change anything, may it destroy anything. */
export function describeHints(hints: OperationAnnotations): string {
  const effect = hints.readOnlyHint
    ? 'read-only'
    : hints.destructiveHint
      ? 'may change or delete (destructive)'
      : 'changes things, deletes nothing';
  return [
    effect,
    hints.idempotentHint ? 'idempotent' : undefined,
    hints.openWorldHint ? 'reaches the service' : 'local',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Each tool or command with its hints, description and inputs. */
export function renderToolDocs(tools: readonly ToolSummary[], style: 'mcp' | 'cli'): string {
  return tools
    .map((tool) => {
      const head =
        style === 'mcp'
          ? `### \`${tool.name}\` — ${tool.title}`
          : `### \`agent-mailbox ${tool.cliCommand}\` — ${tool.title}`;
      const inputs = tool.inputs.map((input) => {
        const name = style === 'mcp' ? input.name : input.cliFlag;
        return `- \`${name}\`${input.required ? ' (required)' : ''}${input.cliOnly ? ` (CLI only: \`${input.cliFlag}\`, the operator's)` : ''}: ${input.describe}`;
      });
      return [head, '', `*${describeHints(tool.annotations)}*`, '', tool.description, '', ...inputs].join('\n');
    })
    .join('\n\n');
}

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** One row per tool: its name, title and the two hints a host shows before a call. */
export function renderToolTable(tools: readonly ToolSummary[]): string {
  const rows = tools.map(
    (tool) =>
      `| \`${tool.name}\` | ${tool.title} | ${yesNo(tool.annotations.readOnlyHint)} | ${yesNo(tool.annotations.destructiveHint)} |`,
  );
  return ['| tool | what it does | read-only | destructive |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
