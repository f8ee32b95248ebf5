import { createHash, randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  inputRequired,
  type ClientCapabilities,
  type InputRequiredResult,
  type ProtocolEra,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { isRecord } from '../is-record.js';
import type { Logger } from '../log.js';
import type { ConfirmAnswer, ConfirmRequest } from '../operations/define-operation.js';
import { confirmForm, readConfirmAnswer } from './confirm-form.js';

/**
 * The MCP door's `confirm`: form elicitation, each protocol era its way. 2025-11-25: an
 * `elicitation/create` request within the call; one that fails or times out is a cancel, never a yes
 * (the SDK's shim would make a failure bare error text, and run the operation twice).
 *
 * 2026-07-28 has no server-to-client requests: an unanswered confirm ends the run (its promise
 * rejects), the call returns `input_required`, and the client's retry with `inputResponses` runs the
 * operation again. Which answer belongs to which question travels in `requestState`, HMAC-signed with
 * this process's key and bound to the tool and its exact arguments: a retry cannot carry a yes from
 * another call, an unsolicited answer is ignored, a state that fails to verify or expired asks again.
 */

export interface ConfirmRound {
  confirm: (ask: ConfirmRequest) => Promise<ConfirmAnswer>;
  /** The input_required result when the run stopped at an unanswered confirm. */
  pendingResult: () => Promise<InputRequiredResult | undefined>;
}

export interface ConfirmCall {
  tool: string;
  args: unknown;
  era: ProtocolEra;
  clientCapabilities: ClientCapabilities | undefined;
}

const answerSchema = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('accept'),
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  }),
  z.object({ action: z.enum(['decline', 'cancel', 'unavailable']) }),
]);

const stateSchema = z.object({
  tool: z.string(),
  args: z.string(),
  answered: z.array(z.object({ ask: z.string(), answer: answerSchema })),
  asked: z.object({ key: z.string(), index: z.number().int().nonnegative(), ask: z.string() }).optional(),
});
type ConfirmState = z.infer<typeof stateSchema>;

/** A person answers at a person's pace (as long as the SDK gives its own elicitation legs), then the retry comes. */
const personTimeoutMs = 10 * 60_000;
const stateTtlSeconds = 15 * 60;

/** One per server: the signing key lives as long as the process, so a restart simply asks again. */
export function createElicitationConfirmer(log: Logger): {
  begin(ctx: ServerContext, call: ConfirmCall): Promise<ConfirmRound>;
} {
  const codec = createRequestStateCodec<ConfirmState>({ key: randomBytes(32), ttlSeconds: stateTtlSeconds });
  const verified = async (raw: unknown, ctx: ServerContext): Promise<ConfirmState | undefined> => {
    if (typeof raw !== 'string') return undefined;
    try {
      const parsed = stateSchema.safeParse(await codec.verify(raw, ctx));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    async begin(ctx, call) {
      if (!declaresFormElicitation(call.clientCapabilities)) return unavailableRound;
      if (call.era === 'legacy') return askingRound(ctx, log);
      let argsDigest: string | undefined;
      const digestOfArgs = (): string => (argsDigest ??= digest(call.args));
      const state = await verified(ctx.mcpReq.requestState(), ctx);
      const ours = state !== undefined && state.tool === call.tool && state.args === digestOfArgs();
      let answered: ConfirmState['answered'] = ours ? [...state.answered] : [];
      let reply =
        ours && state.asked ? { ...state.asked, raw: ctx.mcpReq.inputResponses?.[state.asked.key] } : undefined;
      let pending: { index: number; ask: ConfirmRequest; digest: string } | undefined;
      let calls = 0;

      return {
        async confirm(ask) {
          const index = calls++;
          const askDigest = digest(ask);
          const known = answered[index];
          if (known?.ask === askDigest) return known.answer;
          // A different question here: the answers from this point on were to other questions.
          answered = answered.slice(0, index);
          if (reply && reply.raw !== undefined && reply.index === index && reply.ask === askDigest) {
            const answer = await readConfirmAnswer(reply.raw, ask);
            reply = undefined;
            answered.push({ ask: askDigest, answer });
            return answer;
          }
          pending ??= { index, ask, digest: askDigest };
          throw new Error('A confirmation was asked; the call continues once the person has answered.');
        },
        async pendingResult() {
          if (!pending) return undefined;
          const key = `confirm_${pending.index}`;
          const next: ConfirmState = {
            tool: call.tool,
            args: digestOfArgs(),
            answered: answered.slice(0, pending.index),
            asked: { key, index: pending.index, ask: pending.digest },
          };
          return inputRequired({
            inputRequests: {
              [key]: inputRequired.elicit({
                mode: 'form',
                message: pending.ask.message,
                requestedSchema: confirmForm(pending.ask),
              }),
            },
            requestState: await codec.mint(next),
          });
        },
      };
    },
  };
}

/** 2025-11-25: ask with an elicitation/create request, as part of the call. */
function askingRound(ctx: ServerContext, log: Logger): ConfirmRound {
  return {
    async confirm(ask) {
      try {
        const reply = await ctx.mcpReq.send(
          {
            method: 'elicitation/create',
            params: { mode: 'form', message: ask.message, requestedSchema: confirmForm(ask) },
          },
          { signal: ctx.mcpReq.signal, timeout: personTimeoutMs },
        );
        return await readConfirmAnswer(reply, ask);
      } catch (error) {
        // The call itself was cancelled: that is the operation's to handle, not an answer.
        if (ctx.mcpReq.signal.aborted) throw error;
        log.warn(
          `a confirmation could not be asked (counted as cancel): ${error instanceof Error ? error.message : String(error)}`,
        );
        return { action: 'cancel' };
      }
    },
    pendingResult: async () => undefined,
  };
}

const unavailableRound: ConfirmRound = {
  confirm: async () => ({ action: 'unavailable' }),
  pendingResult: async () => undefined,
};

/** Form elicitation declared: `elicitation.form`, or a bare `elicitation: {}` (its meaning before modes existed). */
function declaresFormElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  return 'form' in elicitation || Object.keys(elicitation).length === 0;
}

/** A digest of a JSON value that does not depend on the order of object keys. */
function digest(value: unknown): string {
  const sorted = (_key: string, v: unknown): unknown =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v;
  return createHash('sha256')
    .update(JSON.stringify(value, sorted) ?? 'null')
    .digest('base64url');
}
