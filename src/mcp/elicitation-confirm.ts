import { createHash, randomBytes } from 'node:crypto';
import { createRequestStateCodec, inputRequired, type ClientCapabilities, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ConfirmAnswer, ConfirmRequest } from '../operations/define-operation.js';
import { confirmForm, readConfirmAnswer } from './confirm-form.js';

/**
 * The MCP door's `confirm`: form elicitation, one mechanism for both protocol eras. A confirm whose
 * answer is not here yet ends the run (its promise rejects) and the call returns `input_required`
 * with the question. A 2026-07-28 client asks the person and retries the call with the answer in
 * `inputResponses`; on a 2025-11-25 connection the SDK's legacy shim sends the question as an
 * `elicitation/create` request and re-enters the handler the same way. The operation then runs again
 * from the start and this time finds the answer at that confirm.
 *
 * Which answer belongs to which question travels in `requestState`, signed with a key this process
 * made (HMAC, the SDK's codec) and bound to the tool and its exact arguments: a retry cannot carry a
 * yes from another call, an unsolicited `inputResponses` is ignored, and a state that fails to verify
 * or has expired only means the person is asked again.
 */

/** The rejection a run gets at a confirm whose answer is still to come. */
export class ConfirmationPending extends Error {
  constructor() {
    super('A confirmation was asked; the call continues once the person has answered.');
    this.name = 'ConfirmationPending';
  }
}

export interface ConfirmRound {
  confirm: (ask: ConfirmRequest) => Promise<ConfirmAnswer>;
  /** After the run: the input_required result when it stopped at an unanswered confirm. */
  pendingResult: () => Promise<InputRequiredResult | undefined>;
}

export interface ConfirmCall {
  tool: string;
  args: unknown;
  /** What the client declared: in its initialize request (2025 era) or on this request (2026 era). */
  clientCapabilities: ClientCapabilities | undefined;
}

const answerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('accept'), content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) }),
  z.object({ action: z.enum(['decline', 'cancel', 'unavailable']) }),
]);

const stateSchema = z.object({
  tool: z.string(),
  args: z.string(),
  answered: z.array(z.object({ ask: z.string(), answer: answerSchema })),
  asked: z.object({ key: z.string(), index: z.number().int().nonnegative(), ask: z.string() }).optional(),
});
type ConfirmState = z.infer<typeof stateSchema>;

/** Human-paced, like the SDK's own legs (10 min), with room for a retry. */
const stateTtlSeconds = 15 * 60;

/** One per server: the signing key lives as long as the process, so a restart simply asks again. */
export function createElicitationConfirmer(): { begin(ctx: ServerContext, call: ConfirmCall): Promise<ConfirmRound> } {
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
      let argsDigest: string | undefined;
      const digestOfArgs = (): string => (argsDigest ??= digest(call.args));
      const state = await verified(ctx.mcpReq.requestState(), ctx);
      const ours = state !== undefined && state.tool === call.tool && state.args === digestOfArgs();
      let answered: ConfirmState['answered'] = ours ? [...state.answered] : [];
      let reply = ours && state.asked ? { ...state.asked, raw: ctx.mcpReq.inputResponses?.[state.asked.key] } : undefined;
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
          throw new ConfirmationPending();
        },
        async pendingResult() {
          if (!pending) return undefined;
          const key = `confirm_${pending.index}`;
          const next: ConfirmState = { tool: call.tool, args: digestOfArgs(), answered: answered.slice(0, pending.index), asked: { key, index: pending.index, ask: pending.digest } };
          return inputRequired({
            inputRequests: { [key]: inputRequired.elicit({ mode: 'form', message: pending.ask.message, requestedSchema: confirmForm(pending.ask) }) },
            requestState: await codec.mint(next),
          });
        },
      };
    },
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
  return createHash('sha256').update(stableJson(value)).digest('base64url');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
