import { describe, expect, it } from 'vitest';
import { grantSettings, OAuthGrant } from '../../../src/auth/oauth/oauth-grant.js';
import type { StoredGrant } from '../../../src/credentials/oauth-grant-files.js';
import { OAuthGrantStore } from '../../../src/credentials/oauth-grant-store.js';
import { MailboxError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { inboxListPath } from '../../../src/wire-constants.js';
import { scriptedServer, type ScriptedServer } from '../../helpers/scripted-http-server.js';
import { grantFixture } from '../../helpers/grant-fixture.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * One connected account's shared state against a scripted authorization server (token endpoint and
 * inbox list): the configuration its grant supplies, the stored inbox list and when it is fetched
 * again, and one renewal when the list refuses an access token.
 */

const ids = [
  '11111111-1111-4111-8111-111111111111',
  '22222222-2222-4222-8222-222222222222',
  '33333333-3333-4333-8333-333333333333',
];

interface Scene {
  grant: OAuthGrant;
  store: OAuthGrantStore;
  server: ScriptedServer;
  dir: string;
  listCalls(): number;
  tokenCalls(): number;
  /** What the inbox list answers next: agents, hinted accountIds, or a status. */
  agents: { ids: string[]; hinted: string[]; status: number[] };
}

async function scene(grantExtra: Partial<StoredGrant> = {}): Promise<Scene> {
  const agents = { ids: [ids[0]!, ids[1]!], hinted: [ids[0]!], status: [] as number[] };
  let tokens = 0;
  const server = await scriptedServer((req, res) => {
    if (req.url === '/oauth/token') {
      tokens += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `at-${tokens}`,
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'mail.read mail.send',
          refresh_token: `rt-${tokens}`,
        }),
      );
      return;
    }
    const status = agents.status.shift() ?? 200;
    if (status !== 200) return void res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        agents: agents.ids.map((accountId, i) => ({ accountId, inboxId: i === 1 ? 'ops@acme.test' : `inbox-${i}` })),
        _next: agents.hinted.map((id) => `GET /jmap with X-Service-Account-Id: ${id}`),
      }),
    );
  });
  const dir = await tempCredentialsDir();
  const store = new OAuthGrantStore(dir);
  await store.writeGrant(grantFixture(server.url, { inboxDomain: 'agents.example.test', ...grantExtra }));
  const grant = new OAuthGrant({
    dir,
    configInputs: { env: {} },
    log: silentLogger,
    lock: { waitMs: 5_000 },
    now: Date.now,
  });
  const count = (path: string) => (): number => server.requests.filter((r) => r.url === path).length;
  return { grant, store, server, dir, listCalls: count(inboxListPath), tokenCalls: count('/oauth/token'), agents };
}

describe('grantSettings', () => {
  it('takes the hosts from the grant and its inbox domain only when it has one', () => {
    const base = {
      server: { issuer: 'https://auth.example.test', token_endpoint: 'x' },
      apiUrl: 'https://api.example.test',
    } as StoredGrant;
    expect(grantSettings(base)).toEqual({ authUrl: 'https://auth.example.test', apiUrl: 'https://api.example.test' });
    expect(grantSettings({ ...base, inboxDomain: 'mail.example.test' })).toEqual({
      authUrl: 'https://auth.example.test',
      apiUrl: 'https://api.example.test',
      inboxDomain: 'mail.example.test',
    });
    expect(grantSettings({ ...base, inboxDomain: 42 })).not.toHaveProperty('inboxDomain');
  });
});

describe('a connected account', () => {
  it('resolves its configuration from the grant and again after a reconnect', async () => {
    const s = await scene();
    const first = await s.grant.config();
    expect(first).toMatchObject({
      authUrl: s.server.url,
      apiUrl: 'http://127.0.0.1:9',
      inboxDomain: 'agents.example.test',
      credentialsDir: s.dir,
    });
    expect(await s.grant.config()).toBe(first);
    await s.store.writeGrant({ ...(await s.grant.grant()), apiUrl: 'http://127.0.0.1:10' });
    expect((await s.grant.config()).apiUrl).toBe('http://127.0.0.1:10');
    await s.store.writeGrant({
      ...(await s.grant.grant()),
      connectedAt: '2026-02-01T00:00:00.000Z',
      server: { issuer: 'http://127.0.0.1:11', token_endpoint: 'x' },
    });
    expect((await s.grant.config()).authUrl).toBe('http://127.0.0.1:11');
  });

  it('says the directory holds no connected account when oauth.json is gone', async () => {
    const s = await scene();
    await s.store.removeGrantFiles();
    const error = (await s.grant.config().catch((e: unknown) => e)) as MailboxError;
    expect(error).toBeInstanceOf(MailboxError);
    expect(error).toMatchObject({ code: 'credentials_missing', details: { credentialsDir: s.dir } });
  });

  it('fetches the inbox list once, stores it with the default the service hinted, and reads it back after', async () => {
    const s = await scene();
    const list = await s.grant.inboxList('full', {});
    expect(list.defaultAccountId).toBe(ids[0]);
    expect(list.inboxes.map((i) => i.address)).toEqual(['inbox-0@agents.example.test', 'ops@acme.test']);
    expect(await s.store.readInboxList()).toEqual(list);
    await s.grant.inboxList('full', {});
    expect(s.listCalls()).toBe(1);
    await Promise.all([s.grant.inboxList('full', {}, true), s.grant.inboxList('full', {}, true)]);
    expect(s.listCalls()).toBe(2);
  });

  it('keeps the default learned before when a new list hints none, if that inbox is still listed', async () => {
    const s = await scene();
    await s.grant.inboxList('full', {});
    s.agents.hinted = [];
    expect((await s.grant.inboxList('full', {}, true)).defaultAccountId).toBe(ids[0]);
    s.agents.ids = [ids[1]!, ids[2]!];
    expect((await s.grant.inboxList('full', {}, true)).defaultAccountId).toBeUndefined();
  });

  it('fetches the list again once for an inbox it does not know yet, and not for one it knows', async () => {
    const s = await scene();
    expect((await s.grant.choose('ops@acme.test', 'full', {})).accountId).toBe(ids[1]);
    expect((await s.grant.choose(undefined, 'full', {})).accountId).toBe(ids[0]);
    expect((await s.grant.choose('  ', 'full', {})).accountId).toBe(ids[0]);
    expect(s.listCalls()).toBe(1);
    s.agents.ids = [ids[0]!, ids[1]!, ids[2]!];
    expect((await s.grant.choose(ids[2]!, 'full', {})).accountId).toBe(ids[2]);
    expect(s.listCalls()).toBe(2);
    await expect(s.grant.choose('nobody@example.test', 'full', {})).rejects.toMatchObject({ code: 'inbox_unknown' });
    expect(s.listCalls()).toBe(3);
  });

  it('fetches the list again when no default can be told', async () => {
    const s = await scene();
    s.agents.hinted = [];
    await s.grant.inboxList('full', {});
    await expect(s.grant.choose(undefined, 'full', {})).rejects.toBeInstanceOf(MailboxError);
    expect(s.listCalls()).toBe(2);
  });

  it('renews the access token once when the list refuses it, and gives up on a second refusal', async () => {
    const s = await scene();
    s.agents.status = [401];
    expect((await s.grant.inboxList('full', {})).inboxes).toHaveLength(2);
    expect(s.tokenCalls()).toBe(2);

    const t = await scene();
    t.agents.status = [401, 401];
    const error = (await t.grant.inboxList('full', {}).catch((e: unknown) => e)) as MailboxError;
    expect(error).toMatchObject({ code: 'auth_rejected', status: 401 });
    expect(t.tokenCalls()).toBe(2);
    expect(t.listCalls()).toBe(2);
  });

  it('passes a list error other than a refused token on without renewing', async () => {
    const s = await scene();
    s.agents.status = [403];
    await expect(s.grant.inboxList('full', {})).rejects.toBeInstanceOf(MailboxError);
    expect(s.tokenCalls()).toBe(1);
  });
});
