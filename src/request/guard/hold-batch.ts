import type { JmapRequest, JmapResponse } from '../../jmap/jmap-types.js';
import type { PlannedSubmission } from './mail/batch-sends.js';
import { isRecord } from '../../is-record.js';

/** Holding mail: the batch goes without the held submissions (and their onSuccess updates), their mail a draft in Drafts. */

function asDraft(create: Record<string, unknown>, draftsId: string | undefined): Record<string, unknown> {
  const keywords = isRecord(create.keywords) ? create.keywords : {};
  return {
    ...create,
    ...(draftsId ? { mailboxIds: { [draftsId]: true } } : {}),
    keywords: { ...keywords, $draft: true },
  };
}

/** The batch with the held submissions left out and their mail made drafts. */
export function holdSubmissions(
  request: JmapRequest,
  held: readonly PlannedSubmission[],
  options: { accountId: string; draftsId: string | undefined },
): JmapRequest {
  const calls = request.methodCalls.map(
    ([method, args, callId]) => [method, structuredClone(args), callId] as [string, Record<string, unknown>, string],
  );
  const dropped = new Set<number>();
  const serverDrafts: string[] = [];
  for (const submission of held) {
    const call = calls[submission.callIndex];
    if (!call) continue;
    const args = call[1];
    if (isRecord(args.create)) delete args.create[submission.creationId];
    for (const key of ['onSuccessUpdateEmail', 'onSuccessDestroyEmail'] as const) {
      const value = args[key];
      if (isRecord(value)) delete value[`#${submission.creationId}`];
      else if (Array.isArray(value)) args[key] = value.filter((id) => id !== `#${submission.creationId}`);
    }
    const isEmpty =
      (!isRecord(args.create) || Object.keys(args.create).length === 0) &&
      args.update === undefined &&
      args.destroy === undefined;
    if (isEmpty) dropped.add(submission.callIndex);
    const source = submission.source;
    if (source.kind === 'create' || source.kind === 'import') {
      const sourceArgs = calls[source.callIndex]?.[1];
      const creates = sourceArgs?.[source.kind === 'create' ? 'create' : 'emails'];
      if (isRecord(creates) && isRecord(creates[source.creationId]))
        creates[source.creationId] = asDraft(creates[source.creationId] as Record<string, unknown>, options.draftsId);
    } else if (source.kind === 'server') serverDrafts.push(source.emailId);
  }
  const methodCalls = calls.filter((_, index) => !dropped.has(index));
  if (serverDrafts.length > 0) {
    const update = Object.fromEntries(
      serverDrafts.map((id) => [
        id,
        { 'keywords/$draft': true, ...(options.draftsId ? { [`mailboxIds/${options.draftsId}`]: true } : {}) },
      ]),
    );
    methodCalls.push(['Email/set', { accountId: options.accountId, update }, 'guard-hold']);
  }
  return { ...request, methodCalls };
}

/** The id of the mail a held submission would have sent, once the batch ran (undefined when it was not created). */
export function heldEmailId(
  submission: PlannedSubmission,
  request: JmapRequest,
  response: JmapResponse,
): string | undefined {
  const source = submission.source;
  if (source.kind === 'server') return source.emailId;
  if (source.kind !== 'create' && source.kind !== 'import') return undefined;
  const callId = request.methodCalls[source.callIndex]?.[2];
  const method = source.kind === 'create' ? 'Email/set' : 'Email/import';
  const answer = response.methodResponses.find(([name, , id]) => name === method && id === callId)?.[1];
  const created = isRecord(answer?.created) ? answer.created[source.creationId] : undefined;
  return isRecord(created) && typeof created.id === 'string' ? created.id : undefined;
}
