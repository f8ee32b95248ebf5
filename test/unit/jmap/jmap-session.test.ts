import { describe, expect, it } from 'vitest';
import type { Account } from '../../../src/auth/account-registry.js';
import { resolveConfig } from '../../../src/config.js';
import { MailboxError } from '../../../src/errors.js';
import type { HttpResponse } from '../../../src/http/http-types.js';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import {
  assertSessionOrigins,
  fetchSessionInfo,
  foreignSessionUrls,
  readCachedSession,
} from '../../../src/jmap/jmap-session.js';
import { jmapCapabilities } from '../../../src/wire-constants.js';

/**
 * Session discovery without a network: what the session resource is read as, and above all that a
 * session naming another origin is refused before any request (each one carries a credential) goes there.
 */

const sessionUrl = 'https://api.example/.well-known/jmap';
const { core, mail, submission, blob } = jmapCapabilities;

function sessionBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    capabilities: { [core]: { maxSizeUpload: 100, maxSizeRequest: 200, maxCallsInRequest: 0 }, [mail]: {} },
    accounts: { a1: { name: 'me', accountCapabilities: { [mail]: { maxSizeAttachmentsPerEmail: 300 } } } },
    primaryAccounts: { [mail]: 'a1' },
    apiUrl: '/jmap/',
    uploadUrl: '/upload/{accountId}/',
    downloadUrl: '/download/{accountId}/{blobId}/{name}?type={type}',
    state: 's1',
    ...extra,
  };
}

interface Run {
  posts: Array<{ url: string; request: JmapRequest }>;
  result: Promise<Awaited<ReturnType<typeof fetchSessionInfo>>>;
}

function discover(
  body: unknown,
  options: { finalUrl?: string; answers?: JmapResponse['methodResponses']; allowed?: string; inboxId?: string } = {},
): Run {
  const posts: Run['posts'] = [];
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const response = {
    status: 200,
    url: options.finalUrl ?? '',
    json: () => JSON.parse(text) as unknown,
  } as unknown as HttpResponse;
  const account = { inbox: async () => ({ inboxId: options.inboxId ?? 'me' }) } as unknown as Account;
  const config = resolveConfig(
    options.allowed
      ? { env: { AGENT_MAILBOX_ALLOWED_ORIGINS: options.allowed, AGENT_MAILBOX_INBOX_DOMAIN: 'mail.example' } }
      : { env: { AGENT_MAILBOX_INBOX_DOMAIN: 'mail.example' } },
  );
  const result = fetchSessionInfo({
    sessionUrl,
    account,
    config,
    get: async (url) => {
      expect(url).toBe(sessionUrl);
      return response;
    },
    post: async (url, request) => {
      posts.push({ url, request });
      return { methodResponses: options.answers ?? [['Mailbox/get', { list: [] }, 'mailboxes']], sessionState: 's1' };
    },
  });
  return { posts, result };
}

async function refusal(run: Run): Promise<MailboxError> {
  const error = await run.result.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MailboxError);
  return error as MailboxError;
}

describe('fetchSessionInfo: a session that leads credentials elsewhere', () => {
  for (const field of ['apiUrl', 'uploadUrl', 'downloadUrl', 'eventSourceUrl']) {
    it(`refuses a session whose ${field} names another origin, before any call`, async () => {
      const run = discover(sessionBody({ [field]: 'https://collector.example/x/{accountId}' }));
      const error = await refusal(run);
      expect(error.code).toBe('bad_response');
      expect(error.message).toContain(`names another origin for ${field} (https://collector.example)`);
      expect(run.posts).toEqual([]);
    });
  }

  it('refuses a downgrade to http, another port, and a placeholder that would pick the host', async () => {
    for (const [apiUrl, named] of [
      ['http://api.example/jmap/', 'http://api.example'],
      ['https://api.example:8443/jmap/', 'https://api.example:8443'],
      ['https://{accountId}.example/jmap/', 'a host a template placeholder would choose'],
      ['//collector.example/jmap/', 'https://collector.example'],
    ]) {
      const run = discover(sessionBody({ apiUrl }));
      expect((await refusal(run)).message, apiUrl).toContain(`apiUrl (${named})`);
      expect(run.posts).toEqual([]);
    }
  });

  it('uses a session on an origin the operator allowed, and resolves relative URLs against where it was found', async () => {
    const run = discover(sessionBody({ apiUrl: 'https://blobs.example/jmap/', eventSourceUrl: 'es/?types={types}' }), {
      allowed: 'https://blobs.example',
      finalUrl: 'https://api.example/jmap/session/',
    });
    const info = await run.result;
    expect(info).toMatchObject({
      sessionUrl,
      apiUrl: 'https://blobs.example/jmap/',
      uploadUrl: 'https://api.example/upload/{accountId}/',
      eventSourceUrl: 'https://api.example/jmap/session/es/?types={types}',
    });
    expect(run.posts.map((p) => p.url)).toEqual(['https://blobs.example/jmap/']);
  });

  it('resolves against the session URL asked when the answer names none', async () => {
    const info = await discover(sessionBody()).result;
    expect(info.apiUrl).toBe('https://api.example/jmap/');
    expect(info.eventSourceUrl).toBeUndefined();
  });
});

describe('fetchSessionInfo: reading the session', () => {
  it('says what is wrong with a session it cannot use', async () => {
    expect((await refusal(discover('<html>'))).message).toBe(
      'The JMAP session could not be used: its body is not JSON.',
    );
    expect((await refusal(discover({ ...sessionBody(), apiUrl: 5 }))).message).toBe(
      'The JMAP session could not be used: apiUrl: Invalid input: expected string, received number.',
    );
    const noMail = await refusal(discover(sessionBody({ primaryAccounts: {} })));
    expect(noMail.message).toBe(`The JMAP session could not be used: primaryAccounts has no ${mail} entry.`);
    expect(noMail.hint).toContain('/.well-known/jmap');
  });

  it('reads the limits: positive numbers only, the account before the server, a blob cap when set', async () => {
    const info = await discover(
      sessionBody({
        capabilities: {
          [core]: { maxSizeUpload: 100, maxSizeRequest: -1, maxCallsInRequest: '16' },
          [mail]: { maxSizeAttachmentsPerEmail: 999 },
          [blob]: { maxSizeBlobSet: 400 },
        },
      }),
    ).result;
    expect(info.limits).toEqual({ maxSizeUpload: 100, maxSizeAttachmentsPerEmail: 300, maxSizeBlobSet: 400 });
    const nullBlob = await discover(
      sessionBody({ capabilities: { [core]: null, [blob]: { maxSizeBlobSet: null } }, accounts: { a1: {} } }),
    ).result;
    expect(nullBlob.limits).toEqual({});
    expect(nullBlob.accountCapabilities).toEqual([]);
    expect(nullBlob.sessionState).toBe('s1');
    expect((await discover(sessionBody({ state: '' })).result).sessionState).toBeUndefined();
  });

  it('asks for the identity only where the account may submit', async () => {
    const using = async (capabilities: Record<string, unknown>, accountCapabilities: Record<string, unknown>) => {
      const run = discover(sessionBody({ capabilities, accounts: { a1: { accountCapabilities } } }));
      await run.result;
      return run.posts[0]!.request;
    };
    const all = { [core]: {}, [mail]: {}, [submission]: {} };
    const open = await using(all, {});
    expect(open.using).toEqual([core, mail, submission]);
    expect(open.methodCalls.map((c) => c[0])).toEqual(['Mailbox/get', 'Identity/get']);
    expect(open.methodCalls[1]).toEqual(['Identity/get', { accountId: 'a1', ids: null }, 'identities']);
    expect((await using(all, { [mail]: {}, [submission]: {} })).methodCalls).toHaveLength(2);
    const readOnly = await using(all, { [mail]: {} });
    expect(readOnly.using).toEqual([core, mail]);
    expect(readOnly.methodCalls).toEqual([
      ['Mailbox/get', { accountId: 'a1', ids: null, properties: ['id', 'role', 'name'] }, 'mailboxes'],
    ]);
    expect((await using({ [core]: {}, [mail]: {} }, {})).methodCalls).toHaveLength(1);
  });

  it('maps roles to mailboxes, takes a Sent folder by name only without a sent role, and keeps the inbox', async () => {
    const mailboxes = (list: unknown[]) =>
      discover(sessionBody(), { answers: [['Mailbox/get', { list }, 'mailboxes']] }).result;
    const named = await mailboxes([
      { id: 'm1', role: 'inbox', name: 'Inbox' },
      { id: 'm2', role: null, name: ' Sent Items ' },
      { id: 'm3', role: 'drafts', name: 'Sent' },
    ]);
    expect(named.mailboxIdsByRole).toEqual({ inbox: 'm1', drafts: 'm3', sent: 'm2' });
    expect(named.inboxMailboxId).toBe('m1');
    const withRole = await mailboxes([
      { id: 'm2', name: 'Sent' },
      { id: 'm4', role: 'sent', name: 'Outbox' },
    ]);
    expect(withRole.mailboxIdsByRole).toEqual({ sent: 'm4' });
    expect(withRole.inboxMailboxId).toBeUndefined();
    for (const name of ['Sentinel', 'Unsent mail', 'Sent  Items'])
      expect((await mailboxes([{ id: 'x', name }])).mailboxIdsByRole, name).toEqual({});
    expect((await mailboxes([{ id: 'x' }])).mailboxIdsByRole).toEqual({});
  });

  it("picks the identity of the inbox's own address, any case, else the first", async () => {
    const identity = async (list: unknown[]) =>
      (
        await discover(sessionBody(), {
          answers: [
            ['Mailbox/get', { list: [] }, 'mailboxes'],
            ['Identity/get', { list }, 'identities'],
          ],
        }).result
      ).identityId;
    expect(
      await identity([
        { id: 'i1', email: 'other@mail.example' },
        { id: 'i2', email: 'ME@Mail.Example' },
      ]),
    ).toBe('i2');
    expect(await identity([{ id: 'i1', email: 'other@mail.example' }])).toBe('i1');
    expect(await identity([])).toBeUndefined();
  });

  it('ignores answers to calls it did not make, and refuses a failed lookup', async () => {
    const stray = await discover(sessionBody(), {
      answers: [
        ['Mailbox/get', { list: [{ id: 'x', role: 'inbox' }] }, 'other'],
        ['Identity/get', { list: [{ id: 'i', email: 'me@mail.example' }] }, 'mailboxes'],
        ['Mailbox/get', { list: [{ id: 'y', role: 'trash' }] }, 'identities'],
      ],
    }).result;
    expect(stray.mailboxIdsByRole).toEqual({});
    expect(stray.identityId).toBeUndefined();
    const failed = await refusal(
      discover(sessionBody(), { answers: [['error', { type: 'accountNotFound' }, 'mailboxes']] }),
    );
    expect(failed.message).toBe(
      'The JMAP session could not be used: the mailbox/identity lookup failed: {"type":"accountNotFound"}.',
    );
  });
});

describe('assertSessionOrigins', () => {
  it('names the session, each foreign URL and the setting that allows one', () => {
    const error = (() => {
      try {
        assertSessionOrigins(
          { sessionUrl, apiUrl: 'https://api.example/jmap', uploadUrl: 'https://up.example/u', downloadUrl: 'x' },
          [],
        );
      } catch (e) {
        return e as MailboxError;
      }
      return undefined;
    })();
    expect(error?.details).toEqual({
      session: 'https://api.example',
      foreign: [
        { field: 'uploadUrl', origin: 'https://up.example' },
        { field: 'downloadUrl', origin: 'a host a template placeholder would choose' },
      ],
    });
    expect(error?.hint).toContain('allowedOrigins');
  });

  it('treats every URL of a session whose own URL has no origin as foreign', () => {
    expect(
      foreignSessionUrls(
        {
          sessionUrl: '/relative',
          apiUrl: 'https://api.example/jmap',
          uploadUrl: 'https://api.example/u',
          downloadUrl: 'https://api.example/d',
        },
        [],
      ).map((f) => f.field),
    ).toEqual(['apiUrl', 'uploadUrl', 'downloadUrl']);
  });
});

describe('readCachedSession', () => {
  it('reads the cached entry once per entry, and nothing from an entry an older client wrote', async () => {
    const entry = {
      sessionUrl,
      apiUrl: 'https://api.example/jmap/',
      uploadUrl: 'https://api.example/upload/{accountId}/',
      downloadUrl: 'https://api.example/download/{accountId}/{blobId}/{name}?type={type}',
      accountId: 'a1',
      capabilities: [core],
      fetchedAt: new Date(0).toISOString(),
    };
    let session: unknown = entry;
    const account = { readState: async () => ({ session }) } as unknown as Account;
    const first = await readCachedSession(account);
    expect(first).toMatchObject({ apiUrl: entry.apiUrl, accountCapabilities: [], limits: {}, mailboxIdsByRole: {} });
    expect(Object.isFrozen(first)).toBe(true);
    expect(await readCachedSession(account)).toBe(first);
    session = { accountId: 'a1' };
    expect(await readCachedSession(account)).toBeUndefined();
    session = undefined;
    expect(await readCachedSession(account)).toBeUndefined();
  });
});
