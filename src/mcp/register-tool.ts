import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type McpServer,
  type ProtocolEra,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toMailboxError } from '../errors.js';
import { Deadline } from '../gate/deadline.js';
import type { inboxChoiceCarrier } from '../render/carry-inbox-choice.js';
import type { Operation, OperationContext } from '../operations/define-operation.js';
import { redactSecrets } from '../redact.js';
import type { createElicitationConfirmer } from './elicitation-confirm.js';
import { inputError } from './input-error.js';
import { publishedSchema } from './portable-json-schema.js';
import { createProgressReporter } from './progress.js';
import { mcpErrorSchema, renderError, renderSuccess } from './render.js';

type AnyOperation = Operation<z.ZodObject, z.ZodType>;

/** What every tool of one server shares: the context fields of the table's entries and the confirmer. */
export interface ToolDoor {
  context: Omit<OperationContext, 'signal' | 'progress' | 'confirm' | 'deadline'>;
  /** What each call's one deadline is made of: the configured timeout and the host's budget. */
  timing: { timeoutMs: number; budgetMs?: number };
  era: ProtocolEra;
  confirmer: ReturnType<typeof createElicitationConfirmer>;
  carryInboxChoice: ReturnType<typeof inboxChoiceCarrier>;
}

/** The advertised output schema: the operation's, plus `error`, with every field optional. */
export function advertisedOutputSchema(output: z.ZodType): z.ZodObject | undefined {
  // The SDK clients validate structuredContent even on isError results (1.x client/index.js), so an
  // error result must satisfy the schema too; successes are checked against the operation's own
  // schema in the handler.
  if (!(output instanceof z.ZodObject)) return undefined;
  return output.partial().extend({ error: mcpErrorSchema.optional() });
}

/** Registers one table entry as a tool: the table decides the behaviour, this only carries it over. */
export function registerOperationTool(server: McpServer, op: AnyOperation, door: ToolDoor): void {
  const outputSchema = advertisedOutputSchema(op.output);
  server.registerTool(
    op.name,
    {
      title: op.title,
      description: op.description,
      inputSchema: publishedSchema(op.input, 'input'),
      ...(outputSchema ? { outputSchema: publishedSchema(outputSchema, 'output') } : {}),
      annotations: { title: op.title, ...op.annotations },
    },
    async (args, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const reporter = createProgressReporter({
        progressToken: ctx.mcpReq._meta?.progressToken,
        send: (params) => ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...params } }),
      });
      const started = Date.now();
      const wording = { adjust: door.carryInboxChoice(args['credentials_dir'], args['inbox']) };
      const round = await door.confirmer.begin(ctx, {
        tool: op.name,
        args,
        era: door.era,
        clientCapabilities: clientCapabilitiesOf(ctx, server),
      });
      try {
        const input = op.input.safeParse(args);
        if (!input.success) throw inputError(op, input.error);
        const result: unknown = await op.run(input.data, {
          ...door.context,
          signal: ctx.mcpReq.signal,
          // Progress leaves the process like results do: through the one redactor.
          progress: (update) => reporter.report({ ...update, message: redactSecrets(update.message) }),
          confirm: round.confirm,
          deadline: Deadline.start(door.timing),
        });
        const pending = await round.pendingResult();
        if (pending) return pending;
        const checked = op.output.safeParse(result);
        if (!checked.success)
          throw new Error(`${op.name} returned a result outside its output schema: ${checked.error.message}`);
        return renderSuccess(result, op.present, wording);
      } catch (error) {
        // A run that stopped at an unanswered confirm asks its question, whatever it threw on the way out.
        const pending = await round.pendingResult();
        if (pending) return pending;
        const failure = toMailboxError(error);
        door.context.log.debug(
          `${op.name} failed after ${Date.now() - started} ms: ${failure.code}: ${failure.message}`,
        );
        return renderError(failure, wording);
      } finally {
        reporter.stop();
        door.context.log.debug(`${op.name} took ${Date.now() - started} ms`);
      }
    },
  );
}

/** The client's capabilities: this request's envelope (2026-07-28) or the initialize request (2025-11-25). */
function clientCapabilitiesOf(ctx: ServerContext, server: McpServer): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  if (typeof declared === 'object' && declared !== null) return declared as ClientCapabilities;
  return server.server.getClientCapabilities();
}
