import { z } from 'zod';
import type { InboxAccount } from '../store/inbox-account.js';
import type { MailNetwork } from '../store/mail-network.js';
import { MethodError } from '../protocol/method-error.js';

/** What every method call gets besides its arguments. */
export interface MethodContext {
  account: InboxAccount;
  network: MailNetwork;
  /** Creation id → server id for this request (RFC 8620 §5.3 "#creationId" references). */
  createdIds: Map<string, string>;
  using: ReadonlySet<string>;
}

/** A method's answer, plus implicit follow-up responses (e.g. onSuccessUpdateEmail's Email/set, RFC 8621 §7.5). */
export interface MethodOutcome {
  response: Record<string, unknown>;
  follow?: [string, Record<string, unknown>][];
}

/** One JMAP method of the host. */
export interface MethodDefinition {
  capability: string;
  run(args: Record<string, unknown>, ctx: MethodContext): Promise<MethodOutcome>;
}

/** The arguments of a standard /get (RFC 8620 §5.1). */
export const getArgs = z.object({
  accountId: z.string().optional(),
  ids: z.array(z.string()).nullable().optional(),
  properties: z.array(z.string()).nullable().optional(),
});

/** Validates method arguments; failures become invalidArguments naming the argument. */
export function parseArgs<T extends z.ZodType>(schema: T, args: Record<string, unknown>): z.infer<T> {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('/') : 'arguments';
  throw new MethodError('invalidArguments', `${where}: ${issue?.message ?? 'invalid'}.`, {
    arguments: issue?.path.slice(0, 1) ?? [],
  });
}

/** Checks `ifInState` of a /set call (RFC 8620 §5.3). */
export function checkIfInState(ifInState: string | null | undefined, state: string): void {
  if (ifInState != null && ifInState !== state) {
    throw new MethodError(
      'stateMismatch',
      `ifInState "${ifInState}" does not match the current state "${state}"; fetch changes and retry.`,
    );
  }
}

/** Enforces maxObjectsInGet / maxObjectsInSet (RFC 8620 §5.1, §5.3). */
export function checkObjectLimit(count: number, limit: number, name: string): void {
  if (count > limit)
    throw new MethodError('requestTooLarge', `${count} objects exceed ${name} (${limit}); split the call.`);
}

/** Resolves an id that may be a "#creationId" reference made earlier in this request. */
export function resolveCreationId(id: string, ctx: MethodContext): string | undefined {
  return id.startsWith('#') ? ctx.createdIds.get(id.slice(1)) : id;
}

/** Picks the requested properties of an object, `id` always included (RFC 8620 §5.1). */
export function pickProperties(
  record: Record<string, unknown>,
  properties: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { id: record['id'] };
  for (const property of properties) if (property in record) out[property] = record[property];
  return out;
}

/** Ensures every requested property is known, else invalidArguments. */
export function checkProperties(
  properties: readonly string[] | null | undefined,
  known: readonly string[],
  isKnown?: (property: string) => boolean,
): void {
  for (const property of properties ?? []) {
    if (!known.includes(property) && !isKnown?.(property))
      throw new MethodError('invalidArguments', `Unknown property "${property}".`, { arguments: ['properties'] });
  }
}
