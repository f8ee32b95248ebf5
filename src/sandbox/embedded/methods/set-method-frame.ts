import { jmapLimits } from '../protocol/jmap-limits.js';
import { MethodError, setError, type SetError } from '../protocol/method-error.js';
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
  const count = Object.keys(input.create ?? {}).length + Object.keys(input.update ?? {}).length + (input.destroy?.length ?? 0);
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

/** Turns a thrown error into a SetError; unexpected errors keep their message for debugging. */
export function toSetError(error: unknown): SetError {
  if (error instanceof MethodError) return { ...error.extra, type: error.type, description: error.message };
  return setError('invalidProperties', error instanceof Error ? error.message : String(error));
}
