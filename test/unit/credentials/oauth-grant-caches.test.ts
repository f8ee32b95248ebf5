import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredGrant } from '../../../src/credentials/oauth-grant-files.js';
import { OAuthGrantStore } from '../../../src/credentials/oauth-grant-store.js';
import { redactSecrets } from '../../../src/redact.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * The caches beside a connected account's grant, read back as written or, when damaged, as absent
 * (each is fetched again); the secrets in them known to the redactor as soon as a new process has
 * read them, before any of them can be echoed by a server; and the grant file's own edges.
 */

const grant = (unique: string): StoredGrant => ({
  kind: 'oauth',
  version: 1,
  server: { issuer: 'http://127.0.0.1:1', token_endpoint: 'http://127.0.0.1:1/token' },
  apiUrl: 'http://127.0.0.1:2',
  resource: 'http://127.0.0.1:2/jmap',
  clientId: 'client-1',
  clientSecret: `client_secret_${unique}_0123456789`,
  scope: 'mail.read',
  refreshToken: `refresh_token_${unique}_0123456789`,
  generation: 1,
  rotatedAt: '2026-01-01T00:00:00.000Z',
  connectedAt: '2026-01-01T00:00:00.000Z',
});

const unique = (): string => Math.random().toString(36).slice(2, 12);

async function directoryWith(files: Record<string, unknown>): Promise<string> {
  const dir = await tempCredentialsDir();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [name, value] of Object.entries(files))
    await writeFile(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value), { mode: 0o600 });
  return dir;
}

describe('a grant read by a process that did not write it', () => {
  it('makes its refresh token and client secret known to the redactor', async () => {
    const stored = grant(unique());
    const dir = await directoryWith({ 'oauth.json': stored });
    expect(await new OAuthGrantStore(dir).readGrant()).toEqual(stored);
    expect(redactSecrets(`a server said ${stored.refreshToken} and ${stored.clientSecret!}`)).toBe(
      'a server said <secret redacted> and <secret redacted>',
    );
  });

  it('is absent when the directory has none', async () => {
    const dir = await directoryWith({});
    expect(await new OAuthGrantStore(dir).readGrant()).toBeUndefined();
  });

  it('is damaged when its server lacks an issuer or token endpoint, naming the field', async () => {
    for (const [server, field] of [
      [{ token_endpoint: 'http://127.0.0.1:1/token' }, 'server.issuer'],
      [{ issuer: 'http://127.0.0.1:1' }, 'server.token_endpoint'],
    ] as const) {
      const dir = await directoryWith({ 'oauth.json': { ...grant('x'), server } });
      await expect(new OAuthGrantStore(dir).readGrant()).rejects.toMatchObject({
        code: 'credentials_corrupt',
        message: expect.stringContaining(`(${field})`),
      });
    }
  });

  it('is recovered on a later read when an earlier recovery failed', async () => {
    const dir = await directoryWith({ '.oauth.json.999999.abcdef012345.tmp': { ...grant('late'), generation: 4 } });
    // A directory where oauth.json should be stops the rename of the newer copy.
    await mkdir(join(dir, 'oauth.json', 'in-the-way'), { recursive: true });
    const store = new OAuthGrantStore(dir);
    await expect(store.readGrant()).rejects.toThrow();
    await rm(join(dir, 'oauth.json'), { recursive: true });
    expect((await store.readGrant())?.generation).toBe(4);
  });
});

describe('the access token cache', () => {
  it('reads back as written, and a new process knows its tokens as secrets', async () => {
    const token = `access_token_${unique()}_0123456789`;
    const tokens = {
      connectedAt: '2026-01-01T00:00:00.000Z',
      tokens: [{ token, scope: 'mail.read', expiresAt: 1_800_000_000_000, lifetimeSeconds: 900 }],
    };
    const dir = await directoryWith({ 'access-tokens.json': tokens });
    expect(await new OAuthGrantStore(dir).readAccessTokens()).toEqual(tokens);
    expect(redactSecrets(`Bearer ${token}`)).toBe('Bearer <secret redacted>');
  });

  it('written by the store is what it reads', async () => {
    const dir = await directoryWith({});
    const store = new OAuthGrantStore(dir);
    const tokens = {
      connectedAt: 'c',
      tokens: [{ token: 't0123456789', scope: 'mail.read mail.send', expiresAt: 5, lifetimeSeconds: 60 }],
    };
    await store.writeAccessTokens(tokens);
    expect(await new OAuthGrantStore(dir).readAccessTokens()).toEqual(tokens);
  });

  it('counts as absent when a token is empty or a field has the wrong type', async () => {
    for (const broken of [
      { connectedAt: 'c', tokens: [{ token: '', scope: 's', expiresAt: 1, lifetimeSeconds: 1 }] },
      { connectedAt: 'c', tokens: [{ token: 't', scope: 's', expiresAt: 'soon', lifetimeSeconds: 1 }] },
      { tokens: [] },
    ]) {
      const dir = await directoryWith({ 'access-tokens.json': broken });
      expect(await new OAuthGrantStore(dir).readAccessTokens(), JSON.stringify(broken)).toBeUndefined();
    }
  });

  it('is absent when there is none', async () => {
    expect(await new OAuthGrantStore(await directoryWith({})).readAccessTokens()).toBeUndefined();
  });
});

describe('the inbox list', () => {
  it('reads back as written', async () => {
    const dir = await directoryWith({});
    const list = {
      fetchedAt: 'f',
      defaultAccountId: 'u1',
      inboxes: [{ accountId: 'u1', inboxId: 'ops', address: 'ops@acme.test', status: 'active' }],
    };
    await new OAuthGrantStore(dir).writeInboxList(list);
    expect(await new OAuthGrantStore(dir).readInboxList()).toEqual(list);
  });

  it('counts as absent when an inbox lacks its account id, name or address', async () => {
    for (const field of ['accountId', 'inboxId', 'address'] as const) {
      const inbox = { accountId: 'u1', inboxId: 'ops', address: 'ops@acme.test', [field]: '' };
      const dir = await directoryWith({ 'inboxes.json': { fetchedAt: 'f', inboxes: [inbox] } });
      expect(await new OAuthGrantStore(dir).readInboxList(), field).toBeUndefined();
    }
  });
});

describe('the renewal journal', () => {
  it('is read back as written and gone once cleared', async () => {
    const dir = await directoryWith({});
    const store = new OAuthGrantStore(dir);
    const journal = { pid: 42, startedAt: 's', refreshTokenDigest: 'sha256:abc' };
    expect(await store.readRenewalJournal()).toBeUndefined();
    await store.writeRenewalJournal(journal);
    expect(await store.readRenewalJournal()).toEqual(journal);
    await store.clearRenewalJournal();
    expect(await store.readRenewalJournal()).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
    await expect(store.clearRenewalJournal()).resolves.toBeUndefined();
  });

  it('counts as absent when it lacks the digest of the token on its way', async () => {
    const dir = await directoryWith({ 'renewal-pending.json': { pid: 42, startedAt: 's' } });
    expect(await new OAuthGrantStore(dir).readRenewalJournal()).toBeUndefined();
  });
});

describe('disconnecting', () => {
  it('removes the grant even when some of its caches were never written', async () => {
    const dir = await directoryWith({ 'oauth.json': grant('d') });
    await new OAuthGrantStore(dir).removeGrantFiles();
    expect(await readdir(dir)).toEqual([]);
  });
});
