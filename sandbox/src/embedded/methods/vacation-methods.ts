import { z } from 'zod';
import { isDeepStrictEqual } from 'node:util';
import { jmapCapabilities } from '../../wire-constants.js';
import type { VacationRecord } from '../store/records.js';
import { MethodError, setError } from '../protocol/method-error.js';
import { checkProperties, getArgs, parseArgs, pickProperties, type MethodDefinition } from './method-context.js';
import { beginSet, emptyOutcome, setArgsShape, setResponse, toSetError } from './set-method-frame.js';
import { isUtcDate } from './email/email-fields.js';

/** The one VacationResponse of an account has this id (RFC 8621 §8). */
const singletonId = 'singleton';
const vacationProperties = ['id', 'isEnabled', 'fromDate', 'toDate', 'subject', 'textBody', 'htmlBody'];

const utcDateOrNull = z.string().refine(isUtcDate, 'must be a UTCDate such as 2024-10-01T00:00:00Z').nullable();
const vacationPatch = z
  .object({
    id: z.literal(singletonId).optional(),
    isEnabled: z.boolean().optional(),
    fromDate: utcDateOrNull.optional(),
    toDate: utcDateOrNull.optional(),
    subject: z.string().nullable().optional(),
    textBody: z.string().nullable().optional(),
    htmlBody: z.string().nullable().optional(),
  })
  .strict();

function applyPatch(current: VacationRecord, patch: Record<string, unknown>): VacationRecord {
  const parsed = vacationPatch.safeParse(patch);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const property = String(issue?.path[0] ?? (issue && 'keys' in issue ? (issue.keys as string[])[0] : '') ?? '');
    throw new MethodError('invalidProperties', `${property}: ${issue?.message ?? 'invalid'}.`, {
      properties: [property],
    });
  }
  const { id: _id, ...fields } = parsed.data;
  const next: VacationRecord = { ...current };
  for (const [key, value] of Object.entries(fields) as Array<[keyof VacationRecord, never]>)
    if (value !== undefined) next[key] = value;
  if (next.fromDate && next.toDate && Date.parse(next.toDate) <= Date.parse(next.fromDate)) {
    throw new MethodError('invalidProperties', 'toDate must be after fromDate.', { properties: ['toDate'] });
  }
  return next;
}

/**
 * VacationResponse/get and /set (RFC 8621 §8): the account's one automatic reply. Only the
 * singleton exists, so creating or destroying one is a `singleton` SetError. While it is on,
 * delivery answers senders as store/vacation-responder.ts describes.
 */
export const vacationMethods: Record<string, MethodDefinition> = {
  'VacationResponse/get': {
    capability: jmapCapabilities.vacationResponse,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, vacationProperties);
      const ids = input.ids ?? [singletonId];
      const object = pickProperties(
        { id: singletonId, ...ctx.account.vacation },
        input.properties ?? vacationProperties,
      );
      return {
        response: {
          accountId: ctx.account.address,
          state: ctx.account.changes.VacationResponse.state,
          list: ids.includes(singletonId) ? [object] : [],
          notFound: ids.filter((id) => id !== singletonId),
        },
      };
    },
  },
  'VacationResponse/set': {
    capability: jmapCapabilities.vacationResponse,
    async run(args, ctx) {
      const input = parseArgs(z.object(setArgsShape), args);
      const { account } = ctx;
      const oldState = beginSet(input, account.changes.VacationResponse.state);
      const outcome = emptyOutcome();
      for (const creationId of Object.keys(input.create ?? {})) {
        outcome.notCreated[creationId] = setError(
          'singleton',
          'There is exactly one VacationResponse, "singleton"; update it instead.',
        );
      }
      for (const [id, patch] of Object.entries(input.update ?? {})) {
        if (id !== singletonId) {
          outcome.notUpdated[id] = setError('notFound', 'The only VacationResponse is "singleton".');
          continue;
        }
        try {
          const next = applyPatch(account.vacation, patch);
          if (!isDeepStrictEqual(next, account.vacation)) account.setVacation(next);
          outcome.updated[id] = null;
        } catch (error) {
          outcome.notUpdated[id] = toSetError(error);
        }
      }
      for (const id of input.destroy ?? []) {
        outcome.notDestroyed[id] = setError(
          'singleton',
          'The VacationResponse cannot be destroyed; set isEnabled to false instead.',
        );
      }
      return { response: setResponse(account.address, oldState, account.changes.VacationResponse.state, outcome) };
    },
  },
};
