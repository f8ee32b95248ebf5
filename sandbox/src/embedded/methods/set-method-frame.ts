import { z } from 'zod';
import { jmapLimits } from '../protocol/jmap-limits.js';
import { MethodError, type SetError } from '../protocol/method-error.js';
import { checkIfInState, checkObjectLimit, type MethodContext } from './method-context.js';

/** The arguments every /set method shares (RFC 8620 §5.3). */
export interface SetInput {
  ifInState?: string | null | undefined;
  create?: Record<string, Record<string, unknown>> | null | undefined;
  update?: Record<string, Record<string, unknown>> | null | undefined;
  destroy?: string[] | null | undefined;
}

/** The checks each /set starts with (ifInState, maxObjectsInSet); returns the state before any change. */
export function beginSet(input: SetInput, state: string): string {
  checkIfInState(input.ifInState, state);
  const count =
    Object.keys(input.create ?? {}).length + Object.keys(input.update ?? {}).length + (input.destroy?.length ?? 0);
  checkObjectLimit(count, jmapLimits.maxObjectsInSet, 'maxObjectsInSet');
  return state;
}

/** Creates each object in order, registering its creation id so later calls can say `#id`. */
export async function createEach<T extends { id: string }>(
  input: SetInput,
  ctx: MethodContext,
  make: (object: Record<string, unknown>) => Promise<T>,
  describe: (record: T) => Record<string, unknown>,
): Promise<{ created: Record<string, unknown>; notCreated: Record<string, SetError> }> {
  const created: Record<string, unknown> = {};
  const notCreated: Record<string, SetError> = {};
  for (const [creationId, object] of Object.entries(input.create ?? {})) {
    try {
      const record = await make(object);
      ctx.createdIds.set(creationId, record.id);
      created[creationId] = describe(record);
    } catch (error) {
      notCreated[creationId] = toSetError(error);
    }
  }
  return { created, notCreated };
}

/**
 * Turns a refusal into a SetError. Anything else is a fault of the sandbox, not of the record:
 * it goes on up, so the call answers serverFail and the log keeps the stack, rather than an
 * invalidProperties that would blame the client and show it internal text.
 */
export function toSetError(error: unknown): SetError {
  if (error instanceof MethodError) return { ...error.extra, type: error.type, description: error.message };
  throw error;
}

/** The zod shape of the arguments every /set shares (RFC 8620 §5.3). */
export const setArgsShape = {
  accountId: z.string().optional(),
  ifInState: z.string().nullable().optional(),
  create: z.record(z.string(), z.record(z.string(), z.unknown())).nullable().optional(),
  update: z.record(z.string(), z.record(z.string(), z.unknown())).nullable().optional(),
  destroy: z.array(z.string()).nullable().optional(),
};

/** What a /set did, record by record. */
export interface SetOutcome {
  created: Record<string, unknown>;
  notCreated: Record<string, SetError>;
  updated: Record<string, unknown>;
  notUpdated: Record<string, SetError>;
  destroyed: string[];
  notDestroyed: Record<string, SetError>;
}

/** An empty outcome to fill. */
export function emptyOutcome(): SetOutcome {
  return { created: {}, notCreated: {}, updated: {}, notUpdated: {}, destroyed: [], notDestroyed: {} };
}

/** The /set response (RFC 8620 §5.3): each map or list null when empty. */
export function setResponse(
  accountId: string,
  oldState: string,
  newState: string,
  outcome: SetOutcome,
): Record<string, unknown> {
  const orNull = <T>(record: Record<string, T>): Record<string, T> | null =>
    Object.keys(record).length ? record : null;
  return {
    accountId,
    oldState,
    newState,
    created: orNull(outcome.created),
    updated: orNull(outcome.updated),
    destroyed: outcome.destroyed.length ? outcome.destroyed : null,
    notCreated: orNull(outcome.notCreated),
    notUpdated: orNull(outcome.notUpdated),
    notDestroyed: orNull(outcome.notDestroyed),
  };
}
