import { z } from 'zod';
import { isDeepStrictEqual } from 'node:util';
import { jmapCapabilities } from '../../wire-constants.js';
import { newId } from '../store/new-id.js';
import type { IdentityRecord } from '../store/records.js';
import { jmapLimits, sandboxLimits } from '../protocol/jmap-limits.js';
import { MethodError, setError } from '../protocol/method-error.js';
import { changesMethod } from './changes-method.js';
import {
  checkObjectLimit,
  checkProperties,
  getArgs,
  parseArgs,
  pickProperties,
  resolveCreationId,
  type MethodContext,
  type MethodDefinition,
} from './method-context.js';
import { beginSet, emptyOutcome, setArgsShape, setResponse, toSetError } from './set-method-frame.js';

const identityProperties = ['id', 'name', 'email', 'replyTo', 'bcc', 'textSignature', 'htmlSignature', 'mayDelete'];

const addresses = z
  .array(z.object({ name: z.string().nullable().optional(), email: z.string().min(1) }).strict())
  .nullable();
const identityPatch = z
  .object({
    name: z.string().optional(),
    replyTo: addresses.optional(),
    bcc: addresses.optional(),
    textSignature: z.string().optional(),
    htmlSignature: z.string().optional(),
  })
  .strict();
const identityCreate = identityPatch.extend({ email: z.string() }).strict();

/** The Identity object (RFC 8621 §6); the inbox's own identity cannot be deleted. */
export function identityObject(identity: IdentityRecord, address: string): Record<string, unknown> {
  return { ...identity, mayDelete: identity.id !== address };
}

function invalidFrom(error: z.ZodError): MethodError {
  const property = String(error.issues[0]?.path[0] ?? '');
  return new MethodError('invalidProperties', `${property}: ${error.issues[0]?.message ?? 'invalid'}.`, {
    properties: [property],
  });
}

function withNames(list: z.infer<typeof addresses> | undefined): IdentityRecord['replyTo'] | undefined {
  return list === undefined
    ? undefined
    : list && list.map((entry) => ({ name: entry.name ?? null, email: entry.email }));
}

// RFC 8621 §6.3: an identity whose address the user may not send from is refused with forbiddenFrom; this inbox sends only as itself.
function createIdentity(object: Record<string, unknown>, ctx: MethodContext): IdentityRecord {
  const { account } = ctx;
  for (const key of ['id', 'mayDelete'])
    if (key in object)
      throw new MethodError('invalidProperties', `${key} is set by the server.`, { properties: [key] });
  const parsed = identityCreate.safeParse(object);
  if (!parsed.success) throw invalidFrom(parsed.error);
  if (parsed.data.email.toLowerCase() !== account.address.toLowerCase()) {
    throw new MethodError(
      'forbiddenFrom',
      `This inbox may send only as ${account.address}, not as ${parsed.data.email}.`,
    );
  }
  if (account.identities.length >= sandboxLimits.maxIdentities)
    throw new MethodError(
      'overQuota',
      `This inbox already has ${sandboxLimits.maxIdentities} identities; destroy some first.`,
    );
  const identity: IdentityRecord = {
    id: newId('I'),
    name: parsed.data.name ?? '',
    email: account.address,
    replyTo: withNames(parsed.data.replyTo) ?? null,
    bcc: withNames(parsed.data.bcc) ?? null,
    textSignature: parsed.data.textSignature ?? '',
    htmlSignature: parsed.data.htmlSignature ?? '',
  };
  account.recordIdentity(identity, 'created');
  return identity;
}

function updateIdentity(identity: IdentityRecord, patch: Record<string, unknown>, ctx: MethodContext): void {
  const { id, email, mayDelete, ...rest } = patch;
  // email is immutable, id and mayDelete server-set: each may only be sent back unchanged (RFC 8620 §5.3).
  const current = identityObject(identity, ctx.account.address);
  for (const [key, value] of Object.entries({ id, email, mayDelete })) {
    if (value !== undefined && !isDeepStrictEqual(current[key], value))
      throw new MethodError('invalidProperties', `${key} cannot be changed.`, { properties: [key] });
  }
  const parsed = identityPatch.safeParse(rest);
  if (!parsed.success) throw invalidFrom(parsed.error);
  const data = parsed.data;
  if (data.name !== undefined) identity.name = data.name;
  if (data.textSignature !== undefined) identity.textSignature = data.textSignature;
  if (data.htmlSignature !== undefined) identity.htmlSignature = data.htmlSignature;
  const replyTo = withNames(data.replyTo);
  if (replyTo !== undefined) identity.replyTo = replyTo;
  const bcc = withNames(data.bcc);
  if (bcc !== undefined) identity.bcc = bcc;
  ctx.account.recordIdentity(identity, 'updated');
}

/** Identity/get, Identity/set and Identity/changes (RFC 8621 §6). */
export const identityMethods: Record<string, MethodDefinition> = {
  'Identity/get': {
    capability: jmapCapabilities.submission,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, identityProperties);
      const { account } = ctx;
      const ids = input.ids ?? account.identities.map((identity) => identity.id);
      checkObjectLimit(ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const requested of ids) {
        const identity = account.identities.find(
          (candidate) => candidate.id === (resolveCreationId(requested, ctx) ?? requested),
        );
        if (identity)
          list.push(pickProperties(identityObject(identity, account.address), input.properties ?? identityProperties));
        else notFound.push(requested);
      }
      return { response: { accountId: account.address, state: account.changes.Identity.state, list, notFound } };
    },
  },
  'Identity/changes': changesMethod('Identity', jmapCapabilities.submission),
  'Identity/set': {
    capability: jmapCapabilities.submission,
    async run(args, ctx) {
      const input = parseArgs(z.object(setArgsShape), args);
      const { account } = ctx;
      const oldState = beginSet(input, account.changes.Identity.state);
      const outcome = emptyOutcome();
      for (const [creationId, object] of Object.entries(input.create ?? {})) {
        try {
          const identity = createIdentity(object, ctx);
          ctx.createdIds.set(creationId, identity.id);
          const full = identityObject(identity, account.address);
          outcome.created[creationId] = Object.fromEntries(Object.entries(full).filter(([key]) => !(key in object)));
        } catch (error) {
          outcome.notCreated[creationId] = toSetError(error);
        }
      }
      for (const [requested, patch] of Object.entries(input.update ?? {})) {
        const identity = account.identities.find(
          (candidate) => candidate.id === (resolveCreationId(requested, ctx) ?? requested),
        );
        if (!identity)
          outcome.notUpdated[requested] = setError('notFound', `No identity ${requested}; Identity/get lists them.`);
        else {
          try {
            updateIdentity(identity, patch, ctx);
            outcome.updated[identity.id] = null;
          } catch (error) {
            outcome.notUpdated[requested] = toSetError(error);
          }
        }
      }
      for (const requested of input.destroy ?? []) {
        const identity = account.identities.find(
          (candidate) => candidate.id === (resolveCreationId(requested, ctx) ?? requested),
        );
        if (!identity) outcome.notDestroyed[requested] = setError('notFound', `No identity ${requested}.`);
        else if (identity.id === account.address)
          outcome.notDestroyed[requested] = setError(
            'forbidden',
            "The inbox's own identity cannot be destroyed (mayDelete is false).",
          );
        else {
          account.recordIdentity(identity, 'destroyed');
          outcome.destroyed.push(identity.id);
        }
      }
      return { response: setResponse(account.address, oldState, account.changes.Identity.state, outcome) };
    },
  },
};
