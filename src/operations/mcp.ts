import * as z from 'zod';
import { MailboxError } from '../errors.js';
import { defineLazyOperation } from './define-operation.js';

/** `agent-mailbox mcp`, started by the CLI door (core never imports a door); `--verbose` is the `debug` setting. */
export const mcpOperation = defineLazyOperation({
  name: 'mcp',
  title: 'Run the MCP server',
  description:
    'Run the stdio MCP server (for agent hosts: npx -y agent-mailbox mcp). stdout carries the protocol only.',
  schemas: () => ({
    input: z.object({
      tool_deadline_ms: z.coerce
        .number({ error: '--tool-deadline-ms needs a positive whole number of milliseconds' })
        .int('--tool-deadline-ms needs a positive whole number of milliseconds')
        .positive('--tool-deadline-ms needs a positive whole number of milliseconds')
        .optional()
        .describe('Budget per tool call in milliseconds (default 50000; hosts cut calls at ~60 s).'),
    }),
    output: z.object({ stopped: z.literal(true) }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  doors: ['cli'],
  cli: { selfReporting: true },
  async run(input, ctx) {
    if (!ctx.launchMcpServer)
      throw new MailboxError({
        code: 'internal',
        message: 'No MCP server to start from this door.',
        hint: 'Run `agent-mailbox mcp`.',
      });
    await ctx.launchMcpServer({
      verbose: ctx.configInputs.flags?.debug === true,
      ...(ctx.configInputs.flags ? { configFlags: ctx.configInputs.flags } : {}),
      ...(input.tool_deadline_ms !== undefined ? { toolDeadlineMs: input.tool_deadline_ms } : {}),
    });
    return { stopped: true as const };
  },
});
