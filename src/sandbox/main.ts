import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { sandboxCommandInput, sandboxOptionsOf } from './sandbox-command-input.js';
import { runSandboxCommand } from './sandbox-command.js';

/**
 * Direct entry: `node dist/sandbox/main.js [--json] [--difficulty N] ...`, the same options as
 * `agent-mailbox sandbox`, built from the one declaration (sandboxCommandInput). It exists so the
 * sandbox can run without the client's CLI loaded.
 */
async function main(argv: string[]): Promise<number> {
  const keys = Object.keys(sandboxCommandInput.shape);
  const flag = (key: string): string => key.replace(/_/g, '-');
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
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  return runSandboxCommand(sandboxOptionsOf(parsed.data), {
    stdout: process.stdout,
    stderr: process.stderr,
    signal: controller.signal,
  });
}

/** Array-valued options (--oauth-auto-approve) may be given more than once. */
function isRepeatable(key: string): boolean {
  let field = sandboxCommandInput.shape[key as keyof typeof sandboxCommandInput.shape] as z.ZodType;
  while (field.def.type === 'optional') field = (field.def as unknown as { innerType: z.ZodType }).innerType;
  return field.def.type === 'array';
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agent-mailbox sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
