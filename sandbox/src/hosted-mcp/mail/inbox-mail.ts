import { HostedToolError } from '../tools/hosted-tool-error.js';
import { firstSetFailure, responseOf } from './jmap-answers.js';
import {
  discoveryCalls,
  listCalls,
  readCalls,
  readUsing,
  sendCalls,
  sendUsing,
  type DraftSpec,
  type MailPlaces,
} from './mail-plans.js';
import type { InboxConnection } from './mail-store-client.js';
import { summarize, type MessageSummary } from './mail-views.js';

/** Body text read per message at most; a longer body is cut and marked truncated. */
export const maxBodyBytes = 256 * 1024;

/** The role mailboxes of an inbox and, for a send, the identity of its own address. */
export async function findPlaces(inbox: InboxConnection, forSending: boolean): Promise<MailPlaces> {
  const responses = await inbox.call(discoveryCalls(inbox.accountId, forSending), forSending ? sendUsing : readUsing);
  const mailboxes = (responseOf(responses, 'mailboxes')['list'] ?? []) as Array<{ id?: unknown; role?: unknown }>;
  const byRole = (role: string): string => {
    const found = mailboxes.find((mailbox) => mailbox.role === role);
    if (typeof found?.id !== 'string')
      throw new HostedToolError(
        'mail_store_error',
        `The inbox has no ${role} mailbox.`,
        'The sandbox creates it with every inbox; restart the sandbox if it was removed.',
      );
    return found.id;
  };
  let identityId = '';
  if (forSending) {
    const identities = (responseOf(responses, 'identities')['list'] ?? []) as Array<{ id?: unknown; email?: unknown }>;
    const own =
      identities.find(
        (identity) => typeof identity.email === 'string' && identity.email.toLowerCase() === inbox.address,
      ) ?? identities[0];
    if (typeof own?.id !== 'string')
      throw new HostedToolError(
        'mail_store_error',
        'The inbox has no identity to send as.',
        'Restart the sandbox; every inbox gets one.',
      );
    identityId = own.id;
  }
  return {
    accountId: inbox.accountId,
    address: inbox.address,
    inboxId: byRole('inbox'),
    draftsId: forSending ? byRole('drafts') : '',
    sentId: forSending ? byRole('sent') : '',
    identityId,
  };
}

/** The newest messages matching a JMAP filter. */
export async function listMessages(
  inbox: InboxConnection,
  filter: Record<string, unknown>,
  limit: number,
): Promise<{ total: number | undefined; messages: MessageSummary[] }> {
  const responses = await inbox.call(listCalls(inbox.accountId, filter, limit), readUsing);
  const total = responseOf(responses, 'query')['total'];
  const list = (responseOf(responses, 'list')['list'] ?? []) as Array<Record<string, unknown>>;
  return { total: typeof total === 'number' ? total : undefined, messages: list.map(summarize) };
}

/** One Email/get object with its body values, or a not_found tool error. */
export async function getMessage(inbox: InboxConnection, emailId: string): Promise<Record<string, unknown>> {
  const responses = await inbox.call(readCalls(inbox.accountId, emailId, maxBodyBytes), readUsing);
  const [email] = (responseOf(responses, 'message')['list'] ?? []) as Array<Record<string, unknown>>;
  if (!email)
    throw new HostedToolError(
      'not_found',
      `No message ${emailId} in the inbox ${inbox.address}.`,
      'Take a message id from read_inbox, search_messages or search, in the same inbox (agent_id).',
      { tool: 'read_inbox' },
    );
  return email;
}

/** Sends a draft: created in Drafts, submitted, moved to Sent. Never resent on failure. */
export async function sendDraft(
  inbox: InboxConnection,
  places: MailPlaces,
  draft: DraftSpec,
): Promise<{ emailId: string; submissionId: string }> {
  const responses = await inbox.call(sendCalls(places, draft), sendUsing);
  const created = responseOf(responses, 'draft');
  const draftFailure = firstSetFailure(created);
  if (draftFailure)
    throw new HostedToolError(
      'refused',
      `The mail store refused the message: ${draftFailure}.`,
      'Fix what it names (forbiddenFrom: the inbox sends only as its own address) and send again.',
    );
  const submitted = responseOf(responses, 'submit');
  const submitFailure = firstSetFailure(submitted);
  if (submitFailure)
    throw new HostedToolError(
      'refused',
      `The mail store did not send the message: ${submitFailure}.`,
      'The draft stays in Drafts; fix what the error names and send again.',
    );
  const emailId = ((created['created'] ?? {}) as Record<string, { id?: string }>)['draft']?.id ?? '';
  const submissionId = ((submitted['created'] ?? {}) as Record<string, { id?: string }>)['send']?.id ?? '';
  return { emailId, submissionId };
}
