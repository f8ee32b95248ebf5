import { describe, expect, it } from 'vitest';
import type { Account, InboxIdentity } from '../../../src/auth/account-registry.js';
import { resolveConfig } from '../../../src/config.js';
import type { JmapSessionInfo } from '../../../src/jmap/jmap-types.js';
import { builtinVariableNames, builtinVariables } from '../../../src/presets/builtin-variables.js';
import { liveEndpoints } from '../../../src/wire-constants.js';

/** The placeholders a preset gets without the agent naming them: from the session when there is one, else from the stored inbox. */

function account(identity: Partial<InboxIdentity>, flags: Record<string, string> = {}): Account {
  const inbox: InboxIdentity = { kind: 'pow', inboxId: 'ada', stateDir: '/nonexistent', ...identity };
  const config = resolveConfig({ flags, env: {} });
  // Only what builtinVariables reads: the chosen inbox and the configuration.
  return { inbox: async () => inbox, config: async () => config } as Partial<Account> as Account;
}

const session: JmapSessionInfo = {
  sessionUrl: 'https://api.example.test/jmap/session',
  apiUrl: 'https://api.example.test/jmap/api',
  uploadUrl: 'https://api.example.test/upload/{accountId}',
  downloadUrl: 'https://api.example.test/download/{accountId}/{blobId}/{name}',
  accountId: 'ada@custom.example.test',
  capabilities: [],
  accountCapabilities: [],
  limits: {} as JmapSessionInfo['limits'],
  inboxMailboxId: 'mb-inbox',
  identityId: 'id-1',
  mailboxIdsByRole: {
    inbox: 'mb-inbox-role',
    drafts: 'mb-drafts',
    sent: 'mb-sent',
    trash: 'mb-trash',
    junk: 'mb-junk',
    archive: 'mb-archive',
  },
  fetchedAt: '2026-01-01T00:00:00.000Z',
};

describe('builtinVariables', () => {
  it('fills every name from the session, the inbox address from its account id', async () => {
    const values = await builtinVariables(
      account({
        jmapAccountId: 'stored-id',
        uploadUrl: 'https://stored/upload',
        serviceAccountId: '11111111-1111-4111-8111-111111111111',
      }),
      session,
    );
    expect(values).toEqual({
      ACCOUNT_ID: 'ada@custom.example.test',
      INBOX: 'ada@custom.example.test',
      INBOX_MAILBOX_ID: 'mb-inbox',
      UPLOAD_URL: session.uploadUrl,
      DOWNLOAD_URL: session.downloadUrl,
      IDENTITY_ID: 'id-1',
      DRAFTS_MAILBOX_ID: 'mb-drafts',
      SENT_MAILBOX_ID: 'mb-sent',
      TRASH_MAILBOX_ID: 'mb-trash',
      JUNK_MAILBOX_ID: 'mb-junk',
      ARCHIVE_MAILBOX_ID: 'mb-archive',
      SERVICE_ACCOUNT_ID: '11111111-1111-4111-8111-111111111111',
    });
    expect(Object.keys(values).sort()).toEqual([...builtinVariableNames].sort());
  });

  it('without a session takes what the stored inbox knows and leaves the rest out', async () => {
    const values = await builtinVariables(
      account({ jmapAccountId: 'acc-7', uploadUrl: 'https://stored/upload', downloadUrl: 'https://stored/download' }),
      undefined,
    );
    expect(values).toStrictEqual({
      ACCOUNT_ID: 'acc-7',
      INBOX: `ada@${liveEndpoints.inboxDomain}`,
      UPLOAD_URL: 'https://stored/upload',
      DOWNLOAD_URL: 'https://stored/download',
    });
  });

  it('takes the inbox mailbox from the roles when the session names none', async () => {
    const { inboxMailboxId: _omitted, ...rest } = session;
    expect((await builtinVariables(account({}), rest)).INBOX_MAILBOX_ID).toBe('mb-inbox-role');
  });

  it('uses a configured inbox domain, and the service default only when none is configured', async () => {
    expect((await builtinVariables(account({}, { inboxDomain: 'mail.example.test' }), undefined)).INBOX).toBe(
      'ada@mail.example.test',
    );
    expect(
      (await builtinVariables(account({ inboxId: 'ops@acme.test' }, { inboxDomain: 'mail.example.test' }), undefined))
        .INBOX,
    ).toBe('ops@acme.test');
    expect(await builtinVariables(account({}), undefined)).toStrictEqual({ INBOX: `ada@${liveEndpoints.inboxDomain}` });
  });
});
