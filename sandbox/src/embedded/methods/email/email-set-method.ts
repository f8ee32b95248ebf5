import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import { composeMessage, emailCreate } from '../../mime/compose-message.js';
import { MethodError, setError, type SetError } from '../../protocol/method-error.js';
import type { EmailRecord } from '../../store/records.js';
import { beginSet, createEach, setArgsShape, setResponse, toSetError } from '../set-method-frame.js';
import { utcDate } from '../../store/mail-network.js';
import { parseArgs, resolveCreationId, type MethodContext, type MethodDefinition } from '../method-context.js';
import { checkCreateHeaders } from './email-create-rules.js';
import { checkKeywordName, checkKeywords, checkMailboxIds, checkMailboxMap, isUtcDate } from './email-fields.js';

const setArgs = z.object(setArgsShape);
type SetArgs = z.infer<typeof setArgs>;

/** Runs an Email/set; also used for the implicit Email/set of onSuccessUpdateEmail (RFC 8621 §7.5). */
export async function runEmailSet(input: SetArgs, ctx: MethodContext): Promise<Record<string, unknown>> {
  const { account } = ctx;
  const oldState = beginSet(input, account.changes.Email.state);
  const { created, notCreated } = await createEach(
    input,
    ctx,
    (object) => createEmail(object, ctx),
    (email) => ({
      id: email.id,
      blobId: email.blobId,
      threadId: email.threadId,
      size: email.size,
    }),
  );
  const updated: Record<string, null> = {};
  const notUpdated: Record<string, SetError> = {};
  for (const [requested, patch] of Object.entries(input.update ?? {})) {
    const id = resolveCreationId(requested, ctx) ?? requested;
    const email = account.emails.get(id);
    if (!email) {
      notUpdated[requested] = setError('notFound', `No email ${requested} in this account.`);
      continue;
    }
    try {
      const next = applyPatch(email, patch, ctx);
      account.updateEmail(id, next.mailboxIds, next.keywords);
      updated[id] = null;
    } catch (error) {
      notUpdated[requested] = toSetError(error);
    }
  }
  const destroyed: string[] = [];
  const notDestroyed: Record<string, SetError> = {};
  for (const requested of input.destroy ?? []) {
    const id = resolveCreationId(requested, ctx) ?? requested;
    if (!account.emails.has(id)) {
      notDestroyed[requested] = setError('notFound', `No email ${requested} in this account.`);
      continue;
    }
    account.destroyEmail(id);
    destroyed.push(id);
  }
  return setResponse(account.address, oldState, account.changes.Email.state, {
    created,
    notCreated,
    updated,
    notUpdated,
    destroyed,
    notDestroyed,
  });
}

/** Email/set. */
export const emailSetMethods: Record<string, MethodDefinition> = {
  'Email/set': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      return { response: await runEmailSet(parseArgs(setArgs, args), ctx) };
    },
  },
};

async function createEmail(object: Record<string, unknown>, ctx: MethodContext): Promise<EmailRecord> {
  checkCreateHeaders(object);
  const parsed = emailCreate.safeParse(object);
  if (!parsed.success) {
    const property = String(parsed.error.issues[0]?.path[0] ?? '');
    throw new MethodError('invalidProperties', `${property}: ${parsed.error.issues[0]?.message ?? 'invalid'}.`, {
      properties: [property],
    });
  }
  const create = parsed.data;
  for (const key of ['id', 'blobId', 'threadId', 'size', 'hasAttachment', 'preview', 'bodyStructure']) {
    if (key in create)
      throw new MethodError('invalidProperties', `${key} cannot be set on create in this sandbox.`, {
        properties: [key],
      });
  }
  const mailboxIds = checkMailboxMap(create.mailboxIds, ctx);
  const keywords = checkKeywords(create.keywords ?? {});
  if (create.receivedAt !== undefined && !isUtcDate(create.receivedAt)) {
    throw new MethodError(
      'invalidProperties',
      'receivedAt must be a UTCDate such as 2024-10-01T10:00:00Z (RFC 8620 §1.4).',
      { properties: ['receivedAt'] },
    );
  }
  let raw: Buffer;
  try {
    raw = await composeMessage(
      create,
      async (blobId) => (await ctx.account.blobs.resolve(resolveCreationId(blobId, ctx) ?? blobId))?.data,
      ctx.network.domain,
    );
  } catch (error) {
    if (error instanceof MethodError) throw error;
    // The composer refuses input it cannot encode (RFC 8621 §4.6 invalidEmail); its reason is about the client's values.
    throw new MethodError(
      'invalidEmail',
      `The message cannot be built from these properties: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return ctx.account.addEmail(raw, {
    mailboxIds,
    keywords,
    receivedAt: create.receivedAt ?? utcDate(ctx.network.now()),
  });
}

function applyPatch(
  email: EmailRecord,
  patch: Record<string, unknown>,
  ctx: MethodContext,
): { mailboxIds: Record<string, true>; keywords: Record<string, true> } {
  let mailboxIds: Record<string, true> = { ...email.mailboxIds };
  let keywords: Record<string, true> = { ...email.keywords };
  for (const [path, value] of Object.entries(patch)) {
    const [head, ...rest] = path.split('/');
    const key = rest.join('/').replaceAll('~1', '/').replaceAll('~0', '~');
    if (head === 'keywords' && rest.length === 0) keywords = checkKeywords(value);
    else if (head === 'mailboxIds' && rest.length === 0) mailboxIds = checkMailboxMap(value, ctx);
    else if (head === 'keywords' && key) setFlag(keywords, checkKeywordName(key, path), value, path);
    else if (head === 'mailboxIds' && key)
      setFlag(mailboxIds, Object.keys(checkMailboxIds([key], ctx, path))[0] as string, value, path);
    else
      throw new MethodError(
        'invalidProperties',
        `${path} cannot be changed; only keywords and mailboxIds are mutable (RFC 8621 §4.6).`,
        { properties: [path] },
      );
  }
  if (!Object.keys(mailboxIds).length) {
    throw new MethodError('invalidProperties', 'An email must stay in at least one mailbox; destroy it instead.', {
      properties: ['mailboxIds'],
    });
  }
  return { mailboxIds, keywords };
}

function setFlag(target: Record<string, true>, key: string, value: unknown, path: string): void {
  if (value === true) target[key] = true;
  else if (value === null || value === false) delete target[key];
  else throw new MethodError('invalidProperties', `${path} must be true or null.`, { properties: [path] });
}
