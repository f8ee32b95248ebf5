import { mkdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { AccessTokenSource, refreshTokenDigest } from '../../../src/auth/oauth/access-token-source.js';
import type { StoredGrant } from '../../../src/credentials/oauth-grant-files.js';
import { OAuthGrantStore } from '../../../src/credentials/oauth-grant-store.js';
import { MailboxError } from '../../../src/errors.js';
import { Deadline } from '../../../src/gate/deadline.js';
import { silentLogger, type Logger } from '../../../src/log.js';
import { scriptedServer, type ScriptedServer } from '../../helpers/scripted-http-server.js';
import { grantFixture } from '../../helpers/grant-fixture.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * The access tokens of a connected account against a scripted token endpoint and a clock the test
 * moves: when a token is renewed (its margin), what a renewal asks for and stores (the rotated
 * refresh token first, the journal), what it refuses, and what survives in the cache. The sandbox
 * integration test (test/integration/oauth-renewal.test.ts) runs the same source against the real
 * authorization server.
 */

const connectedAt = '2026-01-01T00:00:00.000Z';

interface TokenAnswer {
  status?: number;
  body: Record<string, unknown>;
}

interface Harness {
  source: AccessTokenSource;
  store: OAuthGrantStore;
  dir: string;
  server: ScriptedServer;
  clock: { now: () => number; advance(seconds: number): void };
  renewals: () => number;
  warnings: string[];
  /** The form fields of each refresh request, in order. */
  forms(): Array<Record<string, string>>;
}

let issued = 0;
/** A 200 token answer: a fresh access token of `expires_in` seconds and a rotated refresh token. */
function grantAnswer(fields: Record<string, unknown> = {}): TokenAnswer {
  issued += 1;
  return {
    body: {
      access_token: `at-${issued}-${'a'.repeat(24)}`,
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'mail.read mail.send',
      refresh_token: `rt-${issued}-${'r'.repeat(24)}`,
      ...fields,
    },
  };
}

async function harness(
  answers: (hit: number, form: Record<string, string>) => TokenAnswer,
  grant: Partial<StoredGrant> = {},
): Promise<Harness> {
  const server = await scriptedServer((_req, res, hit, body) => {
    const answer = answers(hit, Object.fromEntries(new URLSearchParams(body)));
    res
      .writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(answer.body));
  });
  const dir = await tempCredentialsDir();
  const store = new OAuthGrantStore(dir);
  await store.writeGrant(
    grantFixture(server.url, {
      apiUrl: 'http://127.0.0.1:1',
      resource: 'http://127.0.0.1:1/jmap',
      scope: 'mail.send mail.read',
      refreshToken: 'rt-original-rrrrrrrrrrrrrrrrrrrrrrrr',
      ...grant,
    }),
  );
  let offset = 0;
  const start = Date.parse('2026-06-01T00:00:00Z');
  const clock = { now: () => start + offset, advance: (seconds: number) => void (offset += seconds * 1000) };
  let renewals = 0;
  const warnings: string[] = [];
  const log: Logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
  const source = new AccessTokenSource({
    dir,
    store,
    log,
    lock: { waitMs: 5_000 },
    now: clock.now,
    timeoutMs: async () => 5_000,
    onRenewal: () => void (renewals += 1),
  });
  const forms = (): Array<Record<string, string>> =>
    server.requests.map((request) => Object.fromEntries(new URLSearchParams(request.body)));
  return { source, store, dir, server, clock, renewals: () => renewals, warnings, forms };
}

describe('access tokens of a connected account', () => {
  it('renews once, stores the rotated refresh token with the next generation, and clears the journal', async () => {
    const h = await harness(() => grantAnswer());
    const token = await h.source.get('full');
    expect(token).toMatch(/^at-\d+-a+$/);
    const grant = await h.store.readGrant();
    expect(grant?.refreshToken).toBe(`rt-${token.split('-')[1]}-${'r'.repeat(24)}`);
    expect(grant?.generation).toBe(2);
    expect(grant?.rotatedAt).toBe('2026-06-01T00:00:00.000Z');
    expect(await h.store.readRenewalJournal()).toBeUndefined();
    const form = h.forms()[0];
    expect(form).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: 'rt-original-rrrrrrrrrrrrrrrrrrrrrrrr',
      client_id: 'client-1',
    });
    expect(form).not.toHaveProperty('scope');
    const cache = await h.store.readAccessTokens();
    expect(cache).toEqual({
      connectedAt,
      tokens: [{ token, scope: 'mail.read mail.send', expiresAt: h.clock.now() + 3_600_000, lifetimeSeconds: 3600 }],
    });
  });

  it('uses a token while more than 60 seconds are left and renews at 60', async () => {
    const h = await harness(() => grantAnswer());
    const first = await h.source.get('full');
    h.clock.advance(3600 - 61);
    expect(await h.source.get('full')).toBe(first);
    expect(h.renewals()).toBe(1);
    h.clock.advance(1);
    const second = await h.source.get('full');
    expect(second).not.toBe(first);
    expect(h.renewals()).toBe(2);
  });

  it('renews a short-lived token when a quarter of its life is left', async () => {
    const h = await harness(() => grantAnswer({ expires_in: 100 }));
    const first = await h.source.get('full');
    h.clock.advance(74);
    expect(await h.source.get('full')).toBe(first);
    h.clock.advance(1);
    expect(await h.source.get('full')).not.toBe(first);
    expect(h.renewals()).toBe(2);
  });

  it('takes a usable token another process cached, without a renewal, only for the same connection', async () => {
    const h = await harness(() => grantAnswer());
    const theirs = {
      token: 'at-from-another-process-aaaaaaaa',
      scope: 'mail.send mail.read',
      expiresAt: h.clock.now() + 600_000,
      lifetimeSeconds: 3600,
    };
    await h.store.writeAccessTokens({ connectedAt, tokens: [theirs] });
    expect(await h.source.get('full')).toBe(theirs.token);
    expect(h.renewals()).toBe(0);

    const other = await harness(() => grantAnswer());
    await other.store.writeAccessTokens({ connectedAt: '2025-12-31T00:00:00.000Z', tokens: [theirs] });
    expect(await other.source.get('full')).not.toBe(theirs.token);
    expect(other.renewals()).toBe(1);
  });

  it('does not take a full-scope token for a read-only need, nor a read-only token for a full one', async () => {
    const h = await harness((_hit, form) => grantAnswer(form['scope'] === 'mail.read' ? { scope: 'mail.read' } : {}));
    const readOnly = {
      token: 'at-read-only-aaaaaaaaaaaaaaaaaaaa',
      scope: 'mail.read',
      expiresAt: h.clock.now() + 600_000,
      lifetimeSeconds: 3600,
    };
    await h.store.writeAccessTokens({ connectedAt, tokens: [readOnly] });
    expect(await h.source.get('read')).toBe(readOnly.token);
    const full = await h.source.get('full');
    expect(full).not.toBe(readOnly.token);
    expect(h.forms().map((form) => form['scope'])).toEqual([undefined]);
    // Both stay cached: each fits a need of its own.
    expect((await h.store.readAccessTokens())?.tokens.map((t) => t.token).sort()).toEqual(
      [full, readOnly.token].sort(),
    );
  });

  it('asks for mail.read only on a read-only renewal and refuses an answer that can send', async () => {
    const h = await harness(() => grantAnswer({ scope: 'mail.send mail.read' }));
    const error = await h.source.get('read').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailboxError);
    expect(error).toMatchObject({ code: 'oauth_failed' });
    expect((error as MailboxError).message).toContain('scope "mail.send mail.read"');
    expect(h.forms()[0]?.['scope']).toBe('mail.read');
    expect(await h.store.readAccessTokens()).toBeUndefined();
  });

  it('drops expired tokens from the cache when it stores a new one, and keeps usable ones of the other need', async () => {
    const h = await harness(() => grantAnswer());
    const expired = {
      token: 'at-expired-aaaaaaaaaaaaaaaaaaaaaa',
      scope: 'mail.read',
      expiresAt: h.clock.now() - 1,
      lifetimeSeconds: 3600,
    };
    const stale = {
      token: 'at-stale-full-aaaaaaaaaaaaaaaaaaa',
      scope: 'mail.read mail.send',
      expiresAt: h.clock.now() + 30_000,
      lifetimeSeconds: 3600,
    };
    await h.store.writeAccessTokens({ connectedAt, tokens: [expired, stale] });
    const token = await h.source.get('full');
    expect((await h.store.readAccessTokens())?.tokens.map((t) => t.token)).toEqual([token]);
  });

  it('renews after the service refused a token, and only that token', async () => {
    const h = await harness(() => grantAnswer());
    const first = await h.source.get('full');
    h.source.invalidate('at-someone-else');
    expect(await h.source.get('full')).toBe(first);
    h.source.invalidate(first);
    const second = await h.source.get('full');
    expect(second).not.toBe(first);
    expect(h.renewals()).toBe(2);
  });

  it('sends one refresh for callers that need a token at the same time', async () => {
    const h = await harness(() => grantAnswer());
    const tokens = await Promise.all([h.source.get('full'), h.source.get('full'), h.source.get('full')]);
    expect(new Set(tokens).size).toBe(1);
    expect(h.server.hits()).toBe(1);
  });

  it('says the account is gone when oauth.json was removed', async () => {
    const h = await harness(() => grantAnswer());
    await h.store.removeGrantFiles();
    await expect(h.source.get('full')).rejects.toMatchObject({ code: 'credentials_missing' });
    expect(h.server.hits()).toBe(0);
  });

  it('refuses a token answer without a positive lifetime', async () => {
    for (const expires of [0, undefined]) {
      const h = await harness(() => ({ body: { ...grantAnswer().body, expires_in: expires } }));
      await expect(h.source.get('full')).rejects.toMatchObject({
        code: 'bad_response',
        message: expect.stringContaining('expires_in'),
      });
      // The rotated refresh token was stored before the answer was judged.
      expect((await h.store.readGrant())?.generation).toBe(2);
    }
  });

  it('on invalid_grant says the grant is revoked, names the directory and keeps the old refresh token', async () => {
    const h = await harness(() => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'refresh token revoked' },
    }));
    const error = (await h.source.get('full').catch((e: unknown) => e)) as MailboxError;
    expect(error).toMatchObject({ code: 'grant_revoked', status: 400, details: { credentialsDir: h.dir } });
    expect(error.message).toContain(`The connected account in ${h.dir} can no longer be used`);
    expect(error.message).not.toContain('was interrupted');
    expect(error.hint).toContain('agent-mailbox connect --credentials-dir');
    expect((await h.store.readGrant())?.refreshToken).toBe('rt-original-rrrrrrrrrrrrrrrrrrrrrrrr');
    expect(await h.store.readRenewalJournal()).toBeUndefined();
  });

  it('explains a revocation that followed a renewal interrupted with the same refresh token', async () => {
    const h = await harness(() => ({ status: 400, body: { error: 'invalid_grant' } }));
    await h.store.writeRenewalJournal({
      pid: 4242,
      startedAt: '2026-05-31T23:59:00.000Z',
      refreshTokenDigest: refreshTokenDigest('rt-original-rrrrrrrrrrrrrrrrrrrrrrrr'),
    });
    const error = (await h.source.get('full').catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('grant_revoked');
    expect(error.message).toContain('An earlier renewal (pid 4242, 2026-05-31T23:59:00.000Z) was interrupted');

    const unrelated = await harness(() => ({ status: 400, body: { error: 'invalid_grant' } }));
    await unrelated.store.writeRenewalJournal({
      pid: 4242,
      startedAt: '2026-05-31T23:59:00.000Z',
      refreshTokenDigest: refreshTokenDigest('rt-some-other-token'),
    });
    expect(((await unrelated.source.get('full').catch((e: unknown) => e)) as MailboxError).message).not.toContain(
      'interrupted',
    );
  });

  it('keeps the journal when the token endpoint never answered, so the next renewal can explain', async () => {
    const h = await harness(() => grantAnswer());
    const closed = await scriptedServer(() => undefined);
    await h.store.writeGrant({
      ...(await h.store.readGrant())!,
      server: { issuer: closed.url, token_endpoint: `${closed.url}/oauth/token` },
    });
    const error = await h.source.get('full', { deadline: Deadline.start({ timeoutMs: 300 }) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailboxError);
    expect((error as MailboxError).code).toMatch(/timeout/);
    const journal = await h.store.readRenewalJournal();
    expect(journal).toMatchObject({
      pid: process.pid,
      refreshTokenDigest: refreshTokenDigest('rt-original-rrrrrrrrrrrrrrrrrrrrrrrr'),
      startedAt: '2026-06-01T00:00:00.000Z',
    });
  });

  it('hands out the new token even when the cache cannot be written, and says so', async () => {
    const h = await harness(() => grantAnswer());
    const path = h.store.path('accessTokens');
    // A directory where the cache file should be makes its atomic rename fail.
    await mkdir(path);
    const token = await h.source.get('full');
    expect(token).toMatch(/^at-/);
    expect(h.warnings.join('\n')).toContain('Could not cache the new access token');
    expect(JSON.parse(await readFile(h.store.path('grant'), 'utf8'))).toMatchObject({ generation: 2 });
  });
});

describe('refreshTokenDigest', () => {
  it('is 16 hex characters of SHA-256 and differs between tokens', () => {
    expect(refreshTokenDigest('abc')).toBe('ba7816bf8f01cfea');
    expect(refreshTokenDigest('abd')).not.toBe(refreshTokenDigest('abc'));
  });
});
