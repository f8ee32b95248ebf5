import * as z from 'zod';
import type { KnownInbox, StoredInboxList } from '../../credentials/oauth-grant-files.js';
import { MailboxError, inputRef } from '../../errors.js';
import { sendToService } from '../../gate/send-to-service.js';
import { jsonOrUndefined } from '../../http/parse-json-bytes.js';
import { serviceError, unexpectedAnswer } from '../../http/service-error.js';
import { inboxListPath } from '../../wire-constants.js';
import type { OAuthHttp } from './oauth-http.js';

// Spec §2.1: accountId is a UUID, and it goes into a request header: nothing else is accepted.
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const agentsSchema = z.looseObject({
  agents: z.array(
    z.looseObject({ accountId: z.string(), inboxId: z.string().min(1).max(320), status: z.string().optional() }),
  ),
  _next: z.array(z.string()).optional(),
});

/** The token is no longer accepted (expired or revoked). */
export class InboxListUnauthorized extends Error {}

/** The person's inboxes (spec §2.1); the default is the one accountId the `_next` hints name, if only one. */
export async function fetchInboxList(
  authUrl: string,
  accessToken: string,
  inboxDomain: string,
  http: OAuthHttp,
): Promise<StoredInboxList> {
  const url = `${authUrl}${inboxListPath}`;
  const response = await sendToService(
    url,
    { method: 'GET', headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
    { ...http, what: `GET ${inboxListPath}`, retry: 'idempotent', maxBytes: 1024 * 1024 },
  );
  if (response.status === 401) throw new InboxListUnauthorized('the inbox list refused the access token');
  if (response.status < 200 || response.status >= 300)
    throw serviceError(response.status, response.text(), `GET ${url}`);
  const parsed = agentsSchema.safeParse(jsonOrUndefined(response));
  if (!parsed.success) throw unexpectedAnswer(`The inbox list (${url}) is not what spec §2.1 describes.`);
  const inboxes: KnownInbox[] = parsed.data.agents
    .filter((agent) => uuid.test(agent.accountId))
    .map((agent) => ({
      accountId: agent.accountId.toLowerCase(),
      inboxId: agent.inboxId,
      address: agent.inboxId.includes('@') ? agent.inboxId : `${agent.inboxId}@${inboxDomain}`,
      ...(agent.status !== undefined ? { status: agent.status } : {}),
    }));
  const hinted = inboxes.filter((inbox) =>
    (parsed.data._next ?? []).some((line) => line.toLowerCase().includes(inbox.accountId)),
  );
  const [chosen] = hinted;
  return {
    fetchedAt: new Date().toISOString(),
    ...(chosen && hinted.length === 1 ? { defaultAccountId: chosen.accountId } : {}),
    inboxes,
  };
}

/** The inbox an `inbox` input names: its accountId, its address or its inboxId, in any case. */
export function findInbox(list: StoredInboxList, wanted: string): KnownInbox | undefined {
  const key = wanted.trim().toLowerCase();
  return list.inboxes.find((inbox) =>
    [inbox.accountId, inbox.address, inbox.inboxId].some((name) => name.toLowerCase() === key),
  );
}

/** The grant's default inbox (chosen at consent), else the only one, else none. */
export function defaultInbox(list: StoredInboxList): KnownInbox | undefined {
  const chosen = list.inboxes.find((inbox) => inbox.accountId === list.defaultAccountId);
  return chosen ?? (list.inboxes.length === 1 ? list.inboxes[0] : undefined);
}

/** The inbox a call acts for (spec §4.2: the client picks): the one named, else the default, else the only one. */
export function chooseInbox(list: StoredInboxList, wanted: string | undefined, dir: string): KnownInbox {
  const listed = list.inboxes.map((inbox) => `${inbox.address} (accountId ${inbox.accountId})`);
  const details = {
    credentialsDir: dir,
    inboxes: list.inboxes.map((inbox) => ({ address: inbox.address, accountId: inbox.accountId })),
  };
  if (list.inboxes.length === 0)
    throw new MailboxError({
      code: 'inbox_unknown',
      message: `The account connected in ${dir} owns no inbox.`,
      hint: 'The person creates an inbox (on the consent page or in the dashboard); the operator then runs connect again.',
      details,
    });
  if (wanted !== undefined && wanted.trim() !== '') {
    const found = findInbox(list, wanted);
    if (found) return found;
    throw new MailboxError({
      code: 'inbox_unknown',
      message: `${JSON.stringify(wanted.slice(0, 200))} is not an inbox of the account connected in ${dir}; its inboxes: ${listed.join(', ')}.`,
      hint: `Pass ${inputRef('inbox')} as one of these addresses or accountIds (list_inboxes shows them).`,
      next: { operation: 'list_inboxes' },
      details,
    });
  }
  const chosen = defaultInbox(list);
  if (chosen) return chosen;
  throw new MailboxError({
    code: 'inbox_choice_needed',
    message: `The account connected in ${dir} has ${list.inboxes.length} inboxes and none is its default: ${listed.join(', ')}.`,
    hint: `Pass ${inputRef('inbox')} with the address or accountId of the inbox to use.`,
    next: { operation: 'list_inboxes' },
    details,
  });
}
