import type { KnownInbox, StoredInboxList } from '../../credentials/oauth-grant-files.js';
import { MailboxError, inputRef } from '../../errors.js';

/** The inbox an `inbox` input names: its accountId, its address or its inboxId, in any case. */
export function findInbox(list: StoredInboxList, wanted: string): KnownInbox | undefined {
  const key = wanted.trim().toLowerCase();
  return list.inboxes.find(
    (inbox) =>
      inbox.accountId.toLowerCase() === key ||
      inbox.address.toLowerCase() === key ||
      inbox.inboxId.toLowerCase() === key,
  );
}

/** The grant's default inbox (chosen at consent), else the only one, else none. */
export function defaultInbox(list: StoredInboxList): KnownInbox | undefined {
  const chosen = list.inboxes.find((inbox) => inbox.accountId === list.defaultAccountId);
  return chosen ?? (list.inboxes.length === 1 ? list.inboxes[0] : undefined);
}

/** How an inbox is shown in messages: its address and its accountId. */
export function describeInbox(inbox: KnownInbox): string {
  return `${inbox.address} (accountId ${inbox.accountId})`;
}

/**
 * The inbox a call acts for (spec §4.2: there is no default on the wire, the client picks): the one
 * named, else the default, else the only one. Naming none of several, or one that is not in the
 * list, is refused with the list.
 */
export function chooseInbox(list: StoredInboxList, wanted: string | undefined, dir: string): KnownInbox {
  const listed = list.inboxes.map(describeInbox);
  const details = {
    credentialsDir: dir,
    inboxes: list.inboxes.map((inbox) => ({ address: inbox.address, accountId: inbox.accountId })),
  };
  if (list.inboxes.length === 0) {
    throw new MailboxError({
      code: 'inbox_unknown',
      message: `The account connected in ${dir} owns no inbox.`,
      hint: 'The person creates an inbox (on the consent page or in the dashboard); the operator then runs connect again.',
      details,
    });
  }
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
