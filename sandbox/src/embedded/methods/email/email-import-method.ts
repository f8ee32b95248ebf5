import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import { messageProblem } from '../../mime/message-problem.js';
import { jmapLimits } from '../../protocol/jmap-limits.js';
import { MethodError, type SetError } from '../../protocol/method-error.js';
import { EventLoopYielder } from '../../query/event-loop-yielder.js';
import { utcDate } from '../../store/mail-network.js';
import type { EmailRecord } from '../../store/records.js';
import {
  checkIfInState,
  checkObjectLimit,
  parseArgs,
  resolveCreationId,
  type MethodContext,
  type MethodDefinition,
} from '../method-context.js';
import { toSetError } from '../set-method-frame.js';
import { checkKeywords, checkMailboxMap, isUtcDate } from './email-fields.js';

const importArgs = z.object({
  accountId: z.string().optional(),
  ifInState: z.string().nullable().optional(),
  emails: z.record(z.string(), z.record(z.string(), z.unknown())),
});

const importProperties = new Set(['blobId', 'mailboxIds', 'keywords', 'receivedAt']);

function invalid(property: string, why: string): MethodError {
  return new MethodError('invalidProperties', `${property}: ${why}`, { properties: [property] });
}

/**
 * Stores one uploaded RFC 5322 message as an Email (RFC 8621 §4.8). A missing blob, mailbox or
 * bad keyword is invalidProperties, as the RFC says; bytes that are no message are invalidEmail.
 * The same blob may be imported twice: the RFC lets a server allow duplicates.
 */
async function importOne(object: Record<string, unknown>, ctx: MethodContext): Promise<EmailRecord> {
  const unknown = Object.keys(object).find((key) => !importProperties.has(key));
  if (unknown !== undefined)
    throw invalid(unknown, 'is not an EmailImport property; use blobId, mailboxIds, keywords and receivedAt.');
  const blobId = object['blobId'];
  if (typeof blobId !== 'string') throw invalid('blobId', 'give the blobId of an uploaded message.');
  const mailboxIds = checkMailboxMap(object['mailboxIds'], ctx);
  const keywords = checkKeywords(object['keywords'] ?? {});
  const receivedAt = object['receivedAt'] ?? utcDate(ctx.network.now());
  if (!isUtcDate(receivedAt))
    throw invalid('receivedAt', 'use a UTCDate such as 2024-10-01T10:00:00Z (RFC 8620 §1.4).');
  const blob = await ctx.account.blobs.resolve(resolveCreationId(blobId, ctx) ?? blobId);
  if (!blob) throw invalid('blobId', `blob ${blobId} is not in this account; upload the message first.`);
  const problem = messageProblem(blob.data);
  if (problem) throw new MethodError('invalidEmail', `The blob is not an RFC 5322 message: ${problem}.`);
  return ctx.account.addEmail(blob.data, { mailboxIds, keywords, receivedAt });
}

/** Email/import (RFC 8621 §4.8): uploaded messages stored in mailboxes, with keywords and receivedAt. */
export const emailImportMethods: Record<string, MethodDefinition> = {
  'Email/import': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(importArgs, args);
      const { account } = ctx;
      const oldState = account.changes.Email.state;
      checkIfInState(input.ifInState, oldState);
      checkObjectLimit(Object.keys(input.emails).length, jmapLimits.maxObjectsInSet, 'maxObjectsInSet');
      const created: Record<string, unknown> = {};
      const notCreated: Record<string, SetError> = {};
      const yielder = new EventLoopYielder();
      for (const [creationId, object] of Object.entries(input.emails)) {
        try {
          const email = await importOne(object, ctx);
          ctx.createdIds.set(creationId, email.id);
          created[creationId] = { id: email.id, blobId: email.blobId, threadId: email.threadId, size: email.size };
        } catch (error) {
          notCreated[creationId] = toSetError(error);
        }
        await yielder.maybeYield();
      }
      return {
        response: {
          accountId: account.address,
          oldState,
          newState: account.changes.Email.state,
          created: Object.keys(created).length ? created : null,
          notCreated: Object.keys(notCreated).length ? notCreated : null,
        },
      };
    },
  },
};
