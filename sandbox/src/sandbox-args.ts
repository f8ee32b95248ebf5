import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { sandboxCommandInput, sandboxOptionsOf, type SandboxCommandOptions } from './sandbox-command-input.js';

const flag = (key: string): string => key.replace(/_/g, '-');

/** Array-valued options (--oauth-auto-approve) may be given more than once. */
function isRepeatable(key: string): boolean {
  let field = sandboxCommandInput.shape[key as keyof typeof sandboxCommandInput.shape] as z.ZodType;
  while (field.def.type === 'optional') field = (field.def as unknown as { innerType: z.ZodType }).innerType;
  return field.def.type === 'array';
}

/**
 * The bin's flags as the sandbox's options, built from the one declaration (sandboxCommandInput).
 * Throws with every problem when a flag is unknown or a value is refused.
 */
export function parseSandboxArgs(argv: string[]): SandboxCommandOptions {
  const keys = Object.keys(sandboxCommandInput.shape);
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(
      keys.map((key) => [
        flag(key),
        { type: key === 'json' ? ('boolean' as const) : ('string' as const), multiple: isRepeatable(key) },
      ]),
    ),
    strict: true,
  });
  const parsed = sandboxCommandInput.safeParse(Object.fromEntries(keys.map((key) => [key, values[flag(key)]])));
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('; '));
  return sandboxOptionsOf(parsed.data);
}

/** `agent-mailbox-sandbox --help`: the flags and what each does. */
export function sandboxUsage(): string {
  const lines = Object.entries(sandboxCommandInput.shape).map(
    ([key, field]) => `  --${flag(key)}\n      ${(field as z.ZodType).description ?? ''}`,
  );
  return [
    'Usage: agent-mailbox-sandbox [options]                     the sandbox on 127.0.0.1, until Ctrl+C',
    '       agent-mailbox-sandbox drill seed|score|run [options]   the mail drill (docs/drill.md)',
    '',
    'Options:',
    ...lines,
    '',
  ].join('\n');
}
