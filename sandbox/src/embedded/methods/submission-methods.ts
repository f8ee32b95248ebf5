import { z } from 'zod';
import { jmapCapabilities } from '../../wire-constants.js';
import { deliverLocal, stripHeader } from '../store/deliver-message.js';
import { jmapLimits } from '../protocol/jmap-limits.js';
import { MethodError, setError, type SetError } from '../protocol/method-error.js';
import { newId } from '../store/new-id.js';
import type { SubmissionRecord } from '../store/records.js';
import { changesMethod } from './changes-method.js';
import { runEmailSet } from './email/email-set-method.js';
import { beginSet, createEach, setArgsShape } from './set-method-frame.js';
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

const address = z.object({
  email: z.string(),
  parameters: z.record(z.string(), z.string().nullable()).nullable().optional(),
});
const submissionCreate = z.object({
  identityId: z.string().optional(),
  emailId: z.string(),
  envelope: z
    .object({ mailFrom: address, rcptTo: z.array(address) })
    .nullable()
    .optional(),
});

const setArgs = z.object({
  ...setArgsShape,
  onSuccessUpdateEmail: z.record(z.string(), z.record(z.string(), z.unknown())).nullable().optional(),
  onSuccessDestroyEmail: z.array(z.string()).nullable().optional(),
});

const submissionProperties = [
  'id',
  'identityId',
  'emailId',
  'threadId',
  'envelope',
  'sendAt',
  'undoStatus',
  'deliveryStatus',
  'dsnBlobIds',
  'mdnBlobIds',
];

/** EmailSubmission/set, /get and /changes (RFC 8621 §7). */
export const submissionMethods: Record<string, MethodDefinition> = {
  'EmailSubmission/get': {
    capability: jmapCapabilities.submission,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, submissionProperties);
      const ids = input.ids ?? [...ctx.account.submissions.keys()];
      checkObjectLimit(ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const lookup = (id: string) => ctx.account.submissions.get(resolveCreationId(id, ctx) ?? id);
      const found = ids.flatMap((id) => lookup(id) ?? []);
      return {
        response: {
          accountId: ctx.account.address,
          state: ctx.account.changes.EmailSubmission.state,
          list: found.map((submission) => pickProperties(submission, input.properties ?? submissionProperties)),
          notFound: ids.filter((id) => !lookup(id)),
        },
      };
    },
  },
  'EmailSubmission/changes': changesMethod('EmailSubmission', jmapCapabilities.submission),
  'EmailSubmission/set': {
    capability: jmapCapabilities.submission,
    async run(args, ctx) {
      const input = parseArgs(setArgs, args);
      const { account } = ctx;
      const oldState = beginSet(input, account.changes.EmailSubmission.state);
      const { created, notCreated } = await createEach(
        input,
        ctx,
        (object) => submit(object, ctx),
        (submission) => ({
          id: submission.id,
          threadId: submission.threadId,
          sendAt: submission.sendAt,
          undoStatus: submission.undoStatus,
        }),
      );
      const notUpdated: Record<string, SetError> = {};
      for (const id of Object.keys(input.update ?? {})) {
        notUpdated[id] = account.submissions.has(id)
          ? setError('cannotUnsend', 'The sandbox delivers at once; a sent message cannot be recalled.')
          : setError('notFound', `No submission ${id}.`);
      }
      const destroyed: string[] = [];
      const notDestroyed: Record<string, SetError> = {};
      for (const requested of input.destroy ?? []) {
        const submission = account.submissions.get(resolveCreationId(requested, ctx) ?? requested);
        if (!submission) notDestroyed[requested] = setError('notFound', `No submission ${requested}.`);
        else {
          account.recordSubmission(submission, 'destroyed');
          destroyed.push(submission.id);
        }
      }
      const response = {
        accountId: account.address,
        oldState,
        newState: account.changes.EmailSubmission.state,
        created: Object.keys(created).length ? created : null,
        notCreated: Object.keys(notCreated).length ? notCreated : null,
        updated: null,
        notUpdated: Object.keys(notUpdated).length ? notUpdated : null,
        destroyed: destroyed.length ? destroyed : null,
        notDestroyed: Object.keys(notDestroyed).length ? notDestroyed : null,
      };
      const follow = await onSuccess(input.onSuccessUpdateEmail ?? {}, input.onSuccessDestroyEmail ?? [], created, ctx);
      return { response, ...(follow ? { follow: [['Email/set', follow]] } : {}) };
    },
  },
};

async function submit(object: Record<string, unknown>, ctx: MethodContext): Promise<SubmissionRecord> {
  const parsed = submissionCreate.safeParse(object);
  if (!parsed.success) {
    const property = String(parsed.error.issues[0]?.path[0] ?? '');
    throw new MethodError('invalidProperties', `${property}: ${parsed.error.issues[0]?.message ?? 'invalid'}.`, {
      properties: [property],
    });
  }
  const create = parsed.data;
  const { account, network } = ctx;
  const own = account.address.toLowerCase();
  const identityId = create.identityId === undefined ? account.address : resolveCreationId(create.identityId, ctx);
  if (!account.identities.some((identity) => identity.id === identityId)) {
    throw new MethodError(
      'invalidProperties',
      `Identity ${create.identityId} does not exist; Identity/get lists this inbox's identities.`,
      { properties: ['identityId'] },
    );
  }
  const emailId = resolveCreationId(create.emailId, ctx);
  const email = emailId ? account.emails.get(emailId) : undefined;
  if (!email)
    throw new MethodError('invalidProperties', `Email ${create.emailId} does not exist in this account.`, {
      properties: ['emailId'],
    });
  const facts = await account.facts(email.id);
  // Spec §1.3 / §7.3: only the inbox's real address may send.
  if (!facts.from?.length || facts.from.some((entry) => entry.email.toLowerCase() !== own)) {
    throw new MethodError('forbiddenFrom', `From must be exactly ${account.address}, the inbox's own address.`);
  }
  if (create.envelope && create.envelope.mailFrom.email.toLowerCase() !== own) {
    throw new MethodError('forbiddenMailFrom', `envelope.mailFrom must be ${account.address}.`);
  }
  const rcptTo =
    create.envelope?.rcptTo.map((entry) => entry.email) ??
    [...(facts.to ?? []), ...(facts.cc ?? []), ...(facts.bcc ?? [])].map((entry) => entry.email);
  const recipients = [...new Set(rcptTo.map((entry) => entry.toLowerCase()))];
  if (!recipients.length)
    throw new MethodError('noRecipients', 'The message has no To, Cc or Bcc recipient and no envelope.');
  // An inbox on a custom domain is local too: the service hosts it.
  const isLocal = (recipient: string): boolean =>
    recipient.split('@')[1] === network.domain.toLowerCase() || network.account(recipient) !== undefined;
  const unknown = recipients.filter((recipient) => isLocal(recipient) && !network.account(recipient));
  if (unknown.length) {
    throw new MethodError(
      'invalidRecipients',
      `No sandbox inbox for ${unknown.join(', ')}; create it first or fix the address.`,
      { invalidRecipients: unknown },
    );
  }
  // Bcc goes before signing (RFC 5322 §3.6.3), so the signature covers what every copy shows.
  const { signed: sent, stamped } = await network.ownMail.authenticate(
    stripHeader(account.raw(email.id), 'bcc'),
    account.address,
  );
  const outside = recipients.filter((recipient) => !isLocal(recipient));
  for (const recipient of recipients.filter(isLocal)) {
    const target = network.account(recipient);
    if (target)
      await deliverLocal(network, target, stamped, {
        envelopeFrom: account.address,
        via: `${account.address} (jmap submission)`,
      });
  }
  if (outside.length) {
    network.recordOutbox({
      at: new Date().toISOString(),
      from: account.address,
      to: outside,
      subject: facts.subject ?? '',
      ...(facts.messageId?.[0] ? { messageId: facts.messageId[0] } : {}),
      size: sent.length,
      rawBase64: sent.toString('base64'),
    });
  }
  const submission: SubmissionRecord = {
    id: newId('S'),
    identityId: identityId as string,
    emailId: email.id,
    threadId: email.threadId,
    envelope: create.envelope
      ? {
          mailFrom: { email: create.envelope.mailFrom.email, parameters: create.envelope.mailFrom.parameters ?? null },
          rcptTo: create.envelope.rcptTo.map((entry) => ({ email: entry.email, parameters: entry.parameters ?? null })),
        }
      : {
          mailFrom: { email: account.address, parameters: null },
          rcptTo: recipients.map((email) => ({ email, parameters: null })),
        },
    sendAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    undoStatus: 'final',
    deliveryStatus: Object.fromEntries(
      recipients.map((recipient) => [
        recipient,
        { smtpReply: '250 2.0.0 OK', delivered: isLocal(recipient) ? 'yes' : 'unknown', displayed: 'unknown' },
      ]),
    ),
    dsnBlobIds: [],
    mdnBlobIds: [],
  };
  account.recordSubmission(submission, 'created');
  return submission;
}

// RFC 8621 §7.5: "#creationId" keys name submissions created in this call; only successful ones act.
async function onSuccess(
  update: Record<string, Record<string, unknown>>,
  destroy: string[],
  created: Record<string, unknown>,
  ctx: MethodContext,
): Promise<Record<string, unknown> | undefined> {
  const emailOf = (key: string): string | undefined => {
    const submissionId = key.startsWith('#')
      ? key.slice(1) in created
        ? ctx.createdIds.get(key.slice(1))
        : undefined
      : key;
    return submissionId ? ctx.account.submissions.get(submissionId)?.emailId : undefined;
  };
  const emailUpdate: Record<string, Record<string, unknown>> = {};
  for (const [key, patch] of Object.entries(update)) {
    const emailId = emailOf(key);
    if (emailId) emailUpdate[emailId] = patch;
  }
  const emailDestroy = destroy.flatMap((key) => emailOf(key) ?? []);
  if (!Object.keys(emailUpdate).length && !emailDestroy.length) return undefined;
  return runEmailSet({ update: emailUpdate, destroy: emailDestroy }, ctx);
}
