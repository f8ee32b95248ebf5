import { describe, expect, it } from 'vitest';
import { chooseInbox } from '../../../src/auth/oauth/inbox-list.js';
import type { StoredInboxList } from '../../../src/credentials/oauth-grant-files.js';
import { MailboxError } from '../../../src/errors.js';

const first = {
  accountId: '11111111-1111-4111-8111-111111111111',
  inboxId: 'ada-inbox',
  address: 'ada-inbox@agent-mailbox.test',
};
const second = {
  accountId: '22222222-2222-4222-8222-222222222222',
  inboxId: 'ops@acme.test',
  address: 'ops@acme.test',
};
const list = (defaultAccountId?: string, inboxes = [first, second]): StoredInboxList => ({
  fetchedAt: '2026-01-01T00:00:00Z',
  inboxes,
  ...(defaultAccountId ? { defaultAccountId } : {}),
});
const refusal = (run: () => unknown): MailboxError => {
  try {
    run();
  } catch (error) {
    return error as MailboxError;
  }
  throw new Error('not refused');
};

describe('the inbox a call acts for', () => {
  it('is the one named, by accountId, address or inbox id, in any case', () => {
    for (const name of [second.accountId, second.accountId.toUpperCase(), 'OPS@acme.test', 'ops@acme.test'])
      expect(chooseInbox(list(first.accountId), name, '/d')).toBe(second);
    expect(chooseInbox(list(), 'ada-inbox', '/d')).toBe(first);
  });

  it("is the grant's default when none is named, else the only inbox", () => {
    expect(chooseInbox(list(second.accountId), undefined, '/d')).toBe(second);
    expect(chooseInbox(list(undefined, [first]), undefined, '/d')).toBe(first);
  });

  it('is refused with the list when there are several, no default and no choice', () => {
    const error = refusal(() => chooseInbox(list(), undefined, '/d'));
    expect(error.code).toBe('inbox_choice_needed');
    expect(error.message).toBe(
      `The account connected in /d has 2 inboxes and none is its default: ada-inbox@agent-mailbox.test (accountId ${first.accountId}), ops@acme.test (accountId ${second.accountId}).`,
    );
    expect(error.hint).toBe('Pass ⟦inbox⟧ with the address or accountId of the inbox to use.');
    expect(error.next).toEqual({ operation: 'list_inboxes' });
  });

  it("is refused with the list when the name is not one of the account's inboxes", () => {
    const error = refusal(() => chooseInbox(list(first.accountId), 'someone@else.test', '/d'));
    expect(error.code).toBe('inbox_unknown');
    expect(error.message).toContain(
      '"someone@else.test" is not an inbox of the account connected in /d; its inboxes: ada-inbox@agent-mailbox.test',
    );
    expect(error.details?.['inboxes']).toEqual([
      { address: first.address, accountId: first.accountId },
      { address: second.address, accountId: second.accountId },
    ]);
  });
});
