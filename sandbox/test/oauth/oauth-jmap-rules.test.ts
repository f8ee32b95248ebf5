import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/start-sandbox.js';
import { cyrusSkipReason } from '../../../test/cyrus/cyrus-test-kit.js';
import { signUpInbox, startTestSandbox } from '../helpers/sandbox.js';
import {
  connect,
  jmapAs,
  mailUsing,
  postForm,
  resultOf,
  sendCalls,
  type MethodCall,
  type Tokens,
} from './oauth-test-client.js';

// Spec §4.2 rules 1–7 on the OAuth path, on each mail store.
const cyrusSkip = cyrusSkipReason('oauth jmap rules');
const mcpUrl = 'http://127.0.0.1:9/hosted';

describe.each([
  ['embedded', false],
  ['cyrus', cyrusSkip !== undefined],
] as const)('the JMAP host on the OAuth path (%s backend)', (backend, skip) => {
  let offsetMs = 0;
  let sandbox: RunningSandbox;
  let apiUrl: string;
  let full: Tokens;
  let readOnly: Tokens;
  let sendOnly: Tokens;
  let bob: Tokens;
  let adaInbox: { accountId: string; address: string };
  let adaOps: { accountId: string; address: string };
  let bobInbox: { accountId: string; address: string };
  const drafts = new Map<string, string>();

  /** The Drafts mailbox id of an inbox, through the OAuth path. */
  const draftsOf = async (tokens: Tokens, accountId: string): Promise<string> => {
    const known = drafts.get(accountId);
    if (known) return known;
    const { body } = await jmapAs(apiUrl, tokens.access_token, accountId, [
      ['Mailbox/query', { filter: { role: 'drafts' } }, 'q'],
    ]);
    const id = (resultOf(body, 'q')['ids'] as string[])[0] ?? '';
    drafts.set(accountId, id);
    return id;
  };
  const subjectsIn = async (tokens: Tokens, accountId: string): Promise<string[]> => {
    const { body } = await jmapAs(apiUrl, tokens.access_token, accountId, [
      ['Email/query', { sort: [{ property: 'receivedAt', isAscending: false }] }, 'q'],
      ['Email/get', { '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: ['subject'] }, 'g'],
    ]);
    return (resultOf(body, 'g')['list'] as Array<{ subject: string }>).map((email) => email.subject);
  };

  beforeAll(async () => {
    if (skip) return;
    sandbox = await startTestSandbox({
      backend,
      mcpUrl,
      now: () => Date.now() + offsetMs,
      oauth: {
        autoApprove: [
          { person: 'Ada', inboxes: ['ada-inbox', 'ops@acme.test'] },
          { person: 'Bob', inboxes: ['bob-inbox'] },
        ],
      },
    });
    [adaInbox, adaOps] = sandbox.oauth.autoApproved[0]?.inboxes as [typeof adaInbox, typeof adaOps];
    bobInbox = sandbox.oauth.autoApproved[1]?.inboxes[0] as typeof bobInbox;
    full = (await connect(sandbox)).tokens;
    readOnly = (await connect(sandbox, { scope: 'mail.read' })).tokens;
    sendOnly = (await connect(sandbox, { scope: 'mail.send' })).tokens;
    bob = (await connect(sandbox, { login_hint: 'Bob' })).tokens;
    const session = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
      headers: { authorization: `Bearer ${full.access_token}`, 'x-service-account-id': adaInbox.accountId },
    });
    apiUrl = ((await session.json()) as { apiUrl: string }).apiUrl;
  });

  it.skipIf(skip)(
    'serves the session of the inbox X-Service-Account-Id names (the session takes the same header)',
    async () => {
      for (const inbox of [adaInbox, adaOps]) {
        const response = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
          headers: { authorization: `Bearer ${readOnly.access_token}`, 'x-service-account-id': inbox.accountId },
        });
        expect(response.status).toBe(200);
        const session = (await response.json()) as { primaryAccounts: Record<string, string> };
        expect(session.primaryAccounts['urn:ietf:params:jmap:mail']).toBe(inbox.address);
      }
      const without = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
        headers: { authorization: `Bearer ${readOnly.access_token}` },
      });
      expect(without.status).toBe(400);
    },
  );

  it.skipIf(skip)(
    'answers a missing or malformed X-Service-Account-Id with 400 in the agent error shape (rules 1–2)',
    async () => {
      for (const header of [
        undefined,
        'ada-inbox',
        adaInbox.accountId.toUpperCase(),
        `${adaInbox.accountId}, ${adaInbox.accountId}`,
      ]) {
        const { status, body } = await jmapAs(apiUrl, full.access_token, header, [['Mailbox/get', {}, 'm']]);
        expect(status, String(header)).toBe(400);
        expect(body).toEqual({
          error: {
            message: expect.stringMatching(/X-Service-Account-Id/),
            hint: expect.stringMatching(/GET \/api\/v1\/agents/),
            docs_url: expect.any(String),
          },
        });
      }
    },
  );

  it.skipIf(skip)("refuses another person's inbox and an unknown one with 403 access_denied (rule 4)", async () => {
    for (const accountId of [bobInbox.accountId, '00000000-0000-4000-8000-000000000000']) {
      const { status, body, headers } = await jmapAs(apiUrl, full.access_token, accountId, [['Mailbox/get', {}, 'm']]);
      expect(status).toBe(403);
      expect(body).toEqual({ error: 'access_denied', error_description: expect.any(String) });
      expect(headers.get('www-authenticate')).toMatch(/^Bearer realm="agent-mailbox", error="access_denied"/);
    }
  });

  it.skipIf(skip)(
    'defaults an omitted accountId to the selected inbox, and an accountId in the body reaches no other inbox (rule 5)',
    async () => {
      const calls: MethodCall[] = [
        ['Mailbox/get', { properties: ['role'] }, 'own'],
        ['Mailbox/get', { accountId: bobInbox.address, properties: ['role'] }, 'bob'],
        ['Mailbox/get', { accountId: adaOps.address, properties: ['role'] }, 'sibling'],
      ];
      const { status, body } = await jmapAs(apiUrl, full.access_token, adaInbox.accountId, calls);
      expect(status).toBe(200);
      expect(resultOf(body, 'own')['accountId']).toBe(adaInbox.address);
      const responses = body['methodResponses'] as MethodCall[];
      expect(responses.find((r) => r[2] === 'bob')).toEqual([
        'error',
        expect.objectContaining({ type: 'accountNotFound' }),
        'bob',
      ]);
      expect(responses.find((r) => r[2] === 'sibling')).toEqual([
        'error',
        expect.objectContaining({ type: 'accountNotFound' }),
        'sibling',
      ]);
    },
  );

  it.skipIf(skip)(
    'refuses a send on a mail.read grant with 403 insufficient_scope and sends nothing (rule 7)',
    async () => {
      const before = await subjectsIn(bob, bobInbox.accountId);
      const calls = sendCalls(
        adaInbox.address,
        bobInbox.address,
        await draftsOf(full, adaInbox.accountId),
        'must not leave',
      );
      const { status, body, headers } = await jmapAs(apiUrl, readOnly.access_token, adaInbox.accountId, calls);
      expect(status).toBe(403);
      expect(body).toEqual({
        error: 'insufficient_scope',
        error_description: expect.stringMatching(/EmailSubmission\/set needs the mail\.send scope/),
      });
      expect(headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="mail\.send"/);
      for (const method of ['VacationResponse/set', 'SieveScript/set']) {
        expect(
          (await jmapAs(apiUrl, readOnly.access_token, adaInbox.accountId, [[method, { update: {} }, 'v']])).status,
          method,
        ).toBe(403);
      }
      expect(await subjectsIn(bob, bobInbox.accountId)).toEqual(before);
      // Reading stays allowed, request after request on the same kept-alive connection.
      for (let i = 0; i < 3; i += 1)
        expect(
          (await jmapAs(apiUrl, readOnly.access_token, adaInbox.accountId, [['Email/query', {}, 'q']])).status,
        ).toBe(200);
    },
  );

  it.skipIf(skip)(
    'sends with mail.send between inboxes, custom domain included, delivering locally (rule 7)',
    async () => {
      const toBob = await jmapAs(
        apiUrl,
        full.access_token,
        adaInbox.accountId,
        sendCalls(adaInbox.address, bobInbox.address, await draftsOf(full, adaInbox.accountId), 'ada to bob'),
      );
      expect(resultOf(toBob.body, 's')['created']).toBeTruthy();
      const toOps = await jmapAs(
        apiUrl,
        full.access_token,
        adaInbox.accountId,
        sendCalls(adaInbox.address, adaOps.address, await draftsOf(full, adaInbox.accountId), 'ada to ops'),
      );
      expect(resultOf(toOps.body, 's')['created']).toBeTruthy();
      const fromOps = await jmapAs(
        apiUrl,
        full.access_token,
        adaOps.accountId,
        sendCalls(adaOps.address, bobInbox.address, await draftsOf(full, adaOps.accountId), 'ops to bob'),
      );
      expect(resultOf(fromOps.body, 's')['created']).toBeTruthy();
      expect(await subjectsIn(bob, bobInbox.accountId)).toEqual(expect.arrayContaining(['ada to bob', 'ops to bob']));
      expect(await subjectsIn(full, adaOps.accountId)).toContain('ada to ops');
      expect((await sandbox.outbox()).map((entry) => entry.subject)).not.toContain('ada to ops');
    },
  );

  it.skipIf(skip)(
    'refuses reading on a grant with only mail.send (rule 7: every other method needs mail.read)',
    async () => {
      const { status, body } = await jmapAs(apiUrl, sendOnly.access_token, adaInbox.accountId, [
        ['Email/query', {}, 'q'],
      ]);
      expect(status).toBe(403);
      expect(body).toMatchObject({
        error: 'insufficient_scope',
        error_description: expect.stringMatching(/Email\/query needs the mail\.read scope/),
      });
    },
  );

  it.skipIf(skip)('uploads and downloads with the token and the same header', async () => {
    const session = (await (
      await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
        headers: { authorization: `Bearer ${readOnly.access_token}`, 'x-service-account-id': adaInbox.accountId },
      })
    ).json()) as { uploadUrl: string; downloadUrl: string };
    const headers = { authorization: `Bearer ${readOnly.access_token}`, 'x-service-account-id': adaInbox.accountId };
    const upload = await fetch(session.uploadUrl.replace('{accountId}', encodeURIComponent(adaInbox.address)), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'attachment bytes',
    });
    expect(upload.status).toBe(201);
    const { blobId } = (await upload.json()) as { blobId: string };
    const url = session.downloadUrl
      .replace('{accountId}', encodeURIComponent(adaInbox.address))
      .replace('{blobId}', blobId)
      .replace('{name}', 'a.txt')
      .replace('{type}', 'text/plain');
    const download = await fetch(url, { headers });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('attachment bytes');
    const refused = await fetch(url, {
      headers: { authorization: `Bearer ${sendOnly.access_token}`, 'x-service-account-id': adaInbox.accountId },
    });
    expect(refused.status).toBe(403);
  });

  it.skipIf(skip)(
    'refuses a token for the MCP resource, an expired token and a revoked grant with 401 invalid_token (rule 6, spec §3)',
    async () => {
      const mcp = (await connect(sandbox, { resource: `${mcpUrl}/mcp` })).tokens;
      const byMcp = await jmapAs(apiUrl, mcp.access_token, adaInbox.accountId, [['Mailbox/get', {}, 'm']]);
      expect(byMcp).toMatchObject({
        status: 401,
        body: { error: 'invalid_token', error_description: expect.stringMatching(/resource/) },
      });
      expect(byMcp.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);

      const soon = await connect(sandbox);
      offsetMs += 901_000;
      try {
        const expired = await jmapAs(apiUrl, soon.tokens.access_token, adaInbox.accountId, [['Mailbox/get', {}, 'm']]);
        expect(expired).toMatchObject({
          status: 401,
          body: { error: 'invalid_token', error_description: expect.stringMatching(/expired/) },
        });
      } finally {
        offsetMs -= 901_000;
      }

      const revoked = await connect(sandbox);
      expect(
        (await jmapAs(apiUrl, revoked.tokens.access_token, adaInbox.accountId, [['Mailbox/get', {}, 'm']])).status,
      ).toBe(200);
      await postForm(`${sandbox.authUrl}/oauth/revoke`, {
        token: revoked.tokens.refresh_token,
        client_id: revoked.client.clientId,
      });
      const after = await jmapAs(apiUrl, revoked.tokens.access_token, adaInbox.accountId, [['Mailbox/get', {}, 'm']]);
      expect(after).toMatchObject({
        status: 401,
        body: { error: 'invalid_token', error_description: expect.stringMatching(/revoked/) },
      });
      expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    },
  );

  it.skipIf(skip)('takes a token for one inbox (urn:service:agent) only with that inbox selected', async () => {
    const single = (await connect(sandbox, { resource: `urn:service:agent:${adaOps.accountId}` })).tokens;
    expect((await jmapAs(apiUrl, single.access_token, adaOps.accountId, [['Mailbox/get', {}, 'm']])).status).toBe(200);
    const other = await jmapAs(apiUrl, single.access_token, adaInbox.accountId, [['Mailbox/get', {}, 'm']]);
    expect(other).toMatchObject({ status: 403, body: { error: 'access_denied' } });
  });

  it.skipIf(skip)(
    'keeps the proof-of-work path as it was: a capability JWT works with or without the header',
    async () => {
      const agent = await signUpInbox(sandbox, 'pow-agent-1');
      for (const extra of [{}, { 'x-service-account-id': adaInbox.accountId }] as Array<Record<string, string>>) {
        const response = await fetch(apiUrl, {
          method: 'POST',
          headers: { authorization: `Bearer ${agent.capability}`, 'content-type': 'application/json', ...extra },
          body: JSON.stringify({ using: mailUsing, methodCalls: [['Mailbox/get', { properties: ['role'] }, 'm']] }),
        });
        expect(response.status).toBe(200);
        expect(resultOf((await response.json()) as Record<string, unknown>, 'm')['accountId']).toBe(agent.address);
      }
    },
  );
});
