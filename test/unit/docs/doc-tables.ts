import { settings, type SettingDeclaration } from '../../../src/config.js';
import type { OperationAnnotations } from '../../../src/operations/define-operation.js';
import type { ToolSummary } from '../../../src/operations/help.js';
import { exitCodes, inputCodes, policyCodes } from '../../../src/render/render-error.js';

// The Markdown tables of the generated doc blocks. They ship nowhere: only the docs test renders
// them, from the code that decides what they say.

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

/** What each exit code means, written next to nothing else so that every doc shows the same words. */
const meanings: { readonly [K in keyof typeof exitCodes]: string } = {
  ok: 'done (for `wake`: the state advanced, or another wake was running)',
  failure:
    'failure, including every refusal or error from a server, a `jmap_request` whose calls failed and a `wake` that did not advance: the output says what failed and what to do next',
  usage: 'usage: bad flags or arguments, or input refused here before anything was sent',
  policy: "refused by the operator's policy, or a change to it that needs the operator at a terminal",
};

/** The error codes that lead to an exit code other than 1 (1 is every other code). */
const codesOf: { readonly [K in keyof typeof exitCodes]?: ReadonlySet<string> } = {
  usage: inputCodes,
  policy: policyCodes,
};

/** The CLI's exit codes as a Markdown table, from `exitCodes` and the sets `exitCodeOf` decides with. */
export function renderExitCodeTable(): string {
  const rows = (Object.keys(exitCodes) as (keyof typeof exitCodes)[]).map((name) => {
    const codes = codesOf[name];
    const listed = codes ? ` (error codes ${[...codes].map((code) => `\`${code}\``).join(', ')})` : '';
    return `| ${exitCodes[name]} | ${meanings[name]}${listed} |`;
  });
  return ['| exit code | meaning |', '| --- | --- |', ...rows].join('\n');
}

/** The default of a setting as the docs show it. */
function shownDefaultOf(decl: SettingDeclaration<unknown>): string {
  if (decl.shownDefault !== undefined) return decl.shownDefault;
  const value = decl.defaultValue();
  return `\`${String(value)}\``;
}

/** The settings as a Markdown table, for docs/reference.md and `help auth` (generated, never hand-kept). */
export function renderSettingsTable(): string {
  const rows = (Object.values(settings) as SettingDeclaration<unknown>[]).map(
    (decl) =>
      `| \`${decl.flag}\` | \`${decl.env}\` | ${decl.credentialsField ? `\`${decl.credentialsField}\`` : '—'} | ${shownDefaultOf(decl)} | ${decl.describe} |`,
  );
  return [
    '| flag | environment | credentials.json | default | what |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
