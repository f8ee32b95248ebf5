import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import { isDeepStrictEqual } from 'node:util';
import type { InboxAccount } from '../../store/inbox-account.js';
import { newId } from '../../store/new-id.js';
import type { MailboxRecord } from '../../store/records.js';
import { sandboxLimits } from '../../protocol/jmap-limits.js';
import { MethodError, setError } from '../../protocol/method-error.js';
import { EventLoopYielder } from '../../query/event-loop-yielder.js';
import { parseArgs, resolveCreationId, type MethodContext, type MethodDefinition } from '../method-context.js';
import { beginSet, emptyOutcome, setArgsShape, setResponse, toSetError } from '../set-method-frame.js';
import { mailboxCounts, mailboxObject, rightsOf } from './mailbox-methods.js';
import {
  checkMailboxName,
  checkParent,
  checkRole,
  checkSiblingName,
  checkSortOrder,
  depthOf,
  invalidMailbox,
} from './mailbox-rules.js';

const setArgs = z.object({ ...setArgsShape, onDestroyRemoveEmails: z.boolean().optional() });

const settable = new Set(['name', 'parentId', 'role', 'sortOrder', 'isSubscribed']);
const serverSet = new Set(['id', 'totalEmails', 'unreadEmails', 'totalThreads', 'unreadThreads', 'myRights']);

/** A create whose parentId names a creation id of this call not made yet. */
class AwaitingParent extends Error {}

/** Mailbox/set (RFC 8621 §2.5): folders created, renamed, moved, (un)subscribed and destroyed. */
export const mailboxSetMethods: Record<string, MethodDefinition> = {
  'Mailbox/set': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(setArgs, args);
      const { account } = ctx;
      const oldState = beginSet(input, account.changes.Mailbox.state);
      const outcome = emptyOutcome();
      // Creates may name a parent created in the same call ("#id"), in any order: retry until no progress.
      let pending = Object.entries(input.create ?? {});
      while (pending.length) {
        const waiting: typeof pending = [];
        for (const [creationId, object] of pending) {
          try {
            const mailbox = createMailbox(object, ctx, new Set([...pending, ...waiting].map(([id]) => id)));
            ctx.createdIds.set(creationId, mailbox.id);
            outcome.created[creationId] = createdView(mailbox, object);
          } catch (error) {
            if (error instanceof AwaitingParent) waiting.push([creationId, object]);
            else outcome.notCreated[creationId] = toSetError(error);
          }
        }
        if (waiting.length === pending.length) {
          for (const [creationId] of waiting)
            outcome.notCreated[creationId] = toSetError(
              invalidMailbox('parentId', 'it names a mailbox of this call that was not created.'),
            );
          break;
        }
        pending = waiting;
      }
      for (const [requested, patch] of Object.entries(input.update ?? {})) {
        const mailbox = account.mailbox(resolveCreationId(requested, ctx) ?? requested);
        if (!mailbox) {
          outcome.notUpdated[requested] = setError('notFound', `No mailbox ${requested} in this account.`);
          continue;
        }
        try {
          updateMailbox(mailbox, patch, ctx);
          outcome.updated[mailbox.id] = null;
        } catch (error) {
          outcome.notUpdated[requested] = toSetError(error);
        }
      }
      await destroyMailboxes(input.destroy ?? [], input.onDestroyRemoveEmails ?? false, ctx, outcome);
      return { response: setResponse(account.address, oldState, account.changes.Mailbox.state, outcome) };
    },
  },
};

function checkPropertyNames(object: Record<string, unknown>): void {
  for (const key of Object.keys(object)) {
    if (serverSet.has(key)) throw invalidMailbox(key, 'is set by the server.');
    if (!settable.has(key)) throw invalidMailbox(key, 'is not a Mailbox property (RFC 8621 §2).');
  }
}

function parentIdOf(value: unknown, ctx: MethodContext, creating: ReadonlySet<string>): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidMailbox('parentId', 'use a mailbox id or null.');
  const resolved = resolveCreationId(value, ctx);
  if (resolved === undefined && creating.has(value.slice(1))) throw new AwaitingParent();
  if (resolved === undefined) throw invalidMailbox('parentId', `${value} names no mailbox created in this request.`);
  return resolved;
}

// RFC 8621 leaves isSubscribed's default to the server; false matches the live service's store.
function createMailbox(
  object: Record<string, unknown>,
  ctx: MethodContext,
  creating: ReadonlySet<string>,
): MailboxRecord {
  const { account } = ctx;
  checkPropertyNames(object);
  const parentId = checkParent(account, parentIdOf(object['parentId'], ctx, creating));
  const name = checkMailboxName(object['name']);
  checkSiblingName(account, name, parentId);
  const role = object['role'] === undefined ? null : checkRole(account, object['role']);
  const sortOrder = object['sortOrder'] === undefined ? 0 : checkSortOrder(object['sortOrder']);
  const isSubscribed = object['isSubscribed'] ?? false;
  if (typeof isSubscribed !== 'boolean') throw invalidMailbox('isSubscribed', 'use true or false.');
  if (account.mailboxes.length >= sandboxLimits.maxMailboxes) {
    throw new MethodError(
      'overQuota',
      `This inbox already has ${sandboxLimits.maxMailboxes} mailboxes (maxMailboxes of the sandbox); destroy some first.`,
    );
  }
  const mailbox: MailboxRecord = { id: newId('m'), name, parentId, role, sortOrder, isSubscribed };
  account.recordMailbox(mailbox, 'created');
  return mailbox;
}

// RFC 8620 §5.3: the created object carries the id, the server-set properties and every default the client left out.
function createdView(mailbox: MailboxRecord, object: Record<string, unknown>): Record<string, unknown> {
  const full = mailboxObject(mailbox, undefined);
  return Object.fromEntries(Object.entries(full).filter(([key]) => !(key in object)));
}

function updateMailbox(mailbox: MailboxRecord, patch: Record<string, unknown>, ctx: MethodContext): void {
  const { account } = ctx;
  const next = { ...mailbox };
  const current = mailboxObject(mailbox, mailboxCounts(account).get(mailbox.id));
  for (const [key, value] of Object.entries(patch)) {
    if (serverSet.has(key)) {
      // A server-set property may be sent back unchanged, never changed.
      if (!isDeepStrictEqual(current[key], value)) throw invalidMailbox(key, 'is set by the server.');
    } else if (key === 'name') next.name = checkMailboxName(value);
    else if (key === 'parentId') next.parentId = parentIdOf(value, ctx, new Set());
    else if (key === 'role') next.role = value as string | null;
    else if (key === 'sortOrder') next.sortOrder = checkSortOrder(value);
    else if (key === 'isSubscribed') {
      if (typeof value !== 'boolean') throw invalidMailbox('isSubscribed', 'use true or false.');
      next.isSubscribed = value;
    } else throw invalidMailbox(key, 'is not a Mailbox property (RFC 8621 §2).');
  }
  const isMoved = next.parentId !== mailbox.parentId;
  const isRenamed = next.name !== mailbox.name;
  if ((isMoved || isRenamed) && !rightsOf(mailbox)['mayRename'])
    throw new MethodError('forbidden', 'The Inbox cannot be renamed or moved (myRights.mayRename is false).');
  if (isMoved) checkParent(account, next.parentId, mailbox);
  if (isMoved || isRenamed) checkSiblingName(account, next.name, next.parentId, mailbox);
  if (next.role !== mailbox.role || mailbox.role === 'inbox') next.role = checkRole(account, next.role, mailbox);
  Object.assign(mailbox, next);
  account.recordMailbox(mailbox, 'updated');
}

/**
 * Destroys mailboxes, deepest first so a parent and its children can go in one call. A mailbox
 * with mail is refused unless onDestroyRemoveEmails: then mail only there is destroyed and mail
 * also elsewhere just leaves it (RFC 8621 §2.5).
 */
async function destroyMailboxes(
  requested: string[],
  removeEmails: boolean,
  ctx: MethodContext,
  outcome: ReturnType<typeof emptyOutcome>,
): Promise<void> {
  const { account } = ctx;
  const found: Array<{ requested: string; mailbox: MailboxRecord }> = [];
  for (const id of requested) {
    const mailbox = account.mailbox(resolveCreationId(id, ctx) ?? id);
    if (mailbox) found.push({ requested: id, mailbox });
    else outcome.notDestroyed[id] = setError('notFound', `No mailbox ${id} in this account.`);
  }
  found.sort((a, b) => depthOf(account, b.mailbox) - depthOf(account, a.mailbox));
  const yielder = new EventLoopYielder();
  for (const { requested: id, mailbox } of found) {
    if (!account.mailboxes.includes(mailbox)) continue;
    const refusal = destroyRefusal(account, mailbox, removeEmails);
    if (refusal) {
      outcome.notDestroyed[id] = refusal;
      continue;
    }
    for (const email of [...account.emails.values()].filter((candidate) => candidate.mailboxIds[mailbox.id])) {
      const { [mailbox.id]: _gone, ...rest } = email.mailboxIds;
      if (Object.keys(rest).length === 0) account.destroyEmail(email.id);
      else account.updateEmail(email.id, rest, email.keywords);
      await yielder.maybeYield();
    }
    account.recordMailbox(mailbox, 'destroyed');
    outcome.destroyed.push(mailbox.id);
  }
}

function destroyRefusal(
  account: InboxAccount,
  mailbox: MailboxRecord,
  removeEmails: boolean,
): ReturnType<typeof setError> | undefined {
  if (!rightsOf(mailbox)['mayDelete'])
    return setError('forbidden', 'The Inbox cannot be destroyed (myRights.mayDelete is false).');
  if (account.mailboxes.some((other) => other.parentId === mailbox.id)) {
    return setError(
      'mailboxHasChild',
      `"${mailbox.name}" has child mailboxes; destroy or move them first (or destroy them in the same call).`,
    );
  }
  if (!removeEmails && [...account.emails.values()].some((email) => email.mailboxIds[mailbox.id])) {
    return setError(
      'mailboxHasEmail',
      `"${mailbox.name}" still holds mail; move it elsewhere first, or pass onDestroyRemoveEmails: true.`,
    );
  }
  return undefined;
}
