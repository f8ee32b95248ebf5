import { z } from 'zod';
import { MailboxError } from '../errors.js';
import { sandboxCommandInput, sandboxOptionsOf } from '../sandbox/sandbox-command-input.js';
import { defineOperation } from './define-operation.js';

/**
 * `agent-mailbox sandbox`: the local sandbox of the service, until Ctrl-C. Its options are declared
 * once in src/sandbox/sandbox-command-input.ts; the sandbox itself loads only when this command runs.
 */
export const sandboxOperation = defineOperation({
  name: 'sandbox',
  title: 'Run the local sandbox',
  description: 'Run the local sandbox of the Agent Mailbox Service (auth host, JMAP host, SMTP) on 127.0.0.1.',
  input: sandboxCommandInput,
  output: z.object({ exitCode: z.number() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  doors: ['cli'],
  cli: { selfReporting: true, configOptions: false, repeatable: ['oauth_auto_approve'] },
  async run(input, ctx) {
    if (!ctx.streams) throw new MailboxError({ code: 'internal', message: 'sandbox needs the process streams.', hint: 'Run it from the CLI.' });
    const { runSandboxCommand } = await import('../sandbox/sandbox-command.js');
    return { exitCode: await runSandboxCommand(sandboxOptionsOf(input), { ...ctx.streams, signal: ctx.signal }) };
  },
});
