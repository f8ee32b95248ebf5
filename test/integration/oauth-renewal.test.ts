import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refreshTokenDigest } from '../../src/auth/oauth/access-token-source.js';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { MailboxError } from '../../src/errors.js';
import { openServiceGate } from '../../src/gate/service-gate.js';
import { silentLogger } from '../../src/log.js';
import { sandboxClientEnv } from '../../sandbox/src/sandbox-command.js';
import {
  connectDirectory,
  expireAccessTokens,
  refreshDirectly,
  startOAuthSandbox,
  storedGrant,
} from '../helpers/oauth-directory.js';
import type { MovableClock } from '../../sandbox/test/helpers/movable-clock.js';
import { checkOutgoing } from '../../src/request/check-outgoing.js';
import { decodeJwt } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';
import { jmapAs, mailUsing, resultOf } from '../../sandbox/test/oauth/oauth-test-client.js';

const sandbox = await startOAuthSandbox();

/** Moves `clock` so the newest cached access token has `secondsLeft` by the client's own reckoning (expires_in). */
async function moveToCachedExpiry(
  clock: { set(offsetMs: number): void },
  dir: string,
  secondsLeft: number,
): Promise<void> {
  const cache = JSON.parse(await readFile(join(dir, 'access-tokens.json'), 'utf8')) as {
    tokens: Array<{ expiresAt: number }>;
  };
  const newest = Math.max(...cache.tokens.map((t) => t.expiresAt));
  clock.set(newest - secondsLeft * 1000 - Date.now());
}

function settableClock(): { now: () => number; set(offsetMs: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, set: (offsetMs) => (offset = offsetMs) };
}

function registry(clock?: Pick<MovableClock, 'now'>): ObservableAccountRegistry {
  const opened = createAccountRegistry({
    configInputs: { flags: {}, env: sandboxClientEnv(sandbox) },
    log: silentLogger,
    ...(clock ? { now: clock.now } : {}),
  });
  return opened;
}

async function connected(scope = 'mail.read mail.send'): Promise<string> {
  const dir = await tempCredentialsDir();
  await connectDirectory(sandbox, dir, { scope });
  return dir;
}

describe('access tokens of a connected account', () => {
  it('uses the access token from connect, then renews ahead of its expiry, storing the rotated refresh token first', async () => {
    const dir = await connected();
    const clock = settableClock();
    const account = registry(clock).open(dir);
    const first = await account.capability();
    expect(decodeJwt(first)['typ'] ?? 'at+jwt').toBeDefined();
    const before = await storedGrant(dir);
    // 61 s left of 900 by the client's own reckoning (expires_in from when the answer came, which
    // under load is a second or more after the token's iat): still outside the 60 s margin.
    await moveToCachedExpiry(clock, dir, 61);
    expect(await account.capability()).toBe(first);
    expect(account.stats().accessTokenRenewals).toBe(0);
    await moveToCachedExpiry(clock, dir, 59);
    const second = await account.capability();
    expect(second).not.toBe(first);
    expect(account.stats().accessTokenRenewals).toBe(1);
    const after = await storedGrant(dir);
    expect(after['generation']).toBe(2);
    expect(after['refreshToken']).not.toBe(before['refreshToken']);
    expect(after['connectedAt']).toBe(before['connectedAt']);
    // The renewal left no journal behind: its outcome is stored.
    await expect(stat(join(dir, 'renewal-pending.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    const cache = JSON.parse(await readFile(join(dir, 'access-tokens.json'), 'utf8')) as {
      tokens: Array<{ token: string }>;
    };
    expect(cache.tokens.map((t) => t.token)).toEqual([second]);
  });

  it('lets ten accounts renewing at once (each its own memory, as ten processes) present the refresh token once per round, and the grant survives', async () => {
    const dir = await connected();
    const clock = settableClock();
    const accounts = Array.from({ length: 10 }, () => registry(clock).open(dir));
    let latest = await accounts[0]!.capability();
    for (let round = 0; round < 4; round += 1) {
      await moveToCachedExpiry(clock, dir, 10);
      const tokens = await Promise.all(accounts.map((account) => account.capability()));
      expect(new Set(tokens).size).toBe(1);
      expect(tokens[0]).not.toBe(latest);
      latest = tokens[0]!;
      expect(accounts.reduce((sum, account) => sum + account.stats().accessTokenRenewals, 0)).toBe(round + 1);
    }
    expect((await storedGrant(dir))['generation']).toBe(5);
    // Had two of them presented one refresh token, the service would have revoked the grant.
    expect((await refreshDirectly(sandbox, dir)).status).toBe(200);
  });

  it('gives a read-only account a token narrowed to mail.read, which the service refuses to send with', async () => {
    const dir = await connected();
    const reg = registry();
    const full = await reg.open(dir).capability();
    const readOnly = reg.open(dir, { readOnly: true });
    const narrowed = await readOnly.capability();
    expect(decodeJwt(full)['scope']).toBe('mail.read mail.send');
    expect(decodeJwt(narrowed)['scope']).toBe('mail.read');
    const { serviceAccountId } = await readOnly.inbox();
    const drafts = resultOf(
      (
        await jmapAs(`${sandbox.apiUrl}/jmap`, narrowed, serviceAccountId, [
          ['Mailbox/query', { filter: { role: 'drafts' } }, 'd'],
        ])
      ).body,
      'd',
    )['ids'] as string[];
    const send = await jmapAs(
      `${sandbox.apiUrl}/jmap`,
      narrowed,
      serviceAccountId,
      [
        [
          'Email/set',
          {
            create: {
              d: {
                mailboxIds: { [drafts[0] ?? '']: true },
                from: [{ email: 'ada-inbox@agent-mailbox.test' }],
                to: [{ email: 'x@example.org' }],
                subject: 'no',
                textBody: [{ partId: 'b', type: 'text/plain' }],
                bodyValues: { b: { value: 'x' } },
              },
            },
          },
          'e',
        ],
        ['EmailSubmission/set', { create: { s: { emailId: '#d', identityId: 'ada-inbox@agent-mailbox.test' } } }, 's'],
      ],
      mailUsing,
    );
    expect(send).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    // Both are cached: the next full call does not renew, and neither does the next read-only one.
    const cache = JSON.parse(await readFile(join(dir, 'access-tokens.json'), 'utf8')) as {
      tokens: Array<{ scope: string }>;
    };
    expect(cache.tokens.map((t) => t.scope).sort()).toEqual(['mail.read', 'mail.read mail.send']);
    const again = registry();
    expect(await again.open(dir).capability()).toBe(full);
    expect(await again.open(dir, { readOnly: true }).capability()).toBe(narrowed);
  });

  it('renews once when the JMAP host refuses a token that had time left', async () => {
    const dir = await connected();
    const path = join(dir, 'access-tokens.json');
    const cache = JSON.parse(await readFile(path, 'utf8')) as { tokens: Array<{ token: string }> };
    const [entry] = cache.tokens;
    if (!entry) throw new Error('no cached token');
    // A token of the right shape the service never issued: 401 invalid_token.
    entry.token = `${entry.token.slice(0, -6)}AAAAAA`;
    await writeFile(path, JSON.stringify(cache), { mode: 0o600 });
    const account = registry().open(dir);
    const gate = openServiceGate(account, {
      signal: new AbortController().signal,
      log: silentLogger,
      timeoutMs: 10_000,
      check: checkOutgoing,
    });
    const session = await gate.session();
    expect(session.accountId).toBe('ada-inbox@agent-mailbox.test');
    expect(account.stats().accessTokenRenewals).toBe(1);
  });

  it("says the grant is gone when it was revoked, naming the directory and the operator's connect", async () => {
    const dir = await connected();
    const grant = await storedGrant(dir);
    await fetch(`${sandbox.authUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: String(grant['refreshToken']),
        client_id: String(grant['clientId']),
      }).toString(),
    });
    await expireAccessTokens(dir);
    const error = (await registry()
      .open(dir)
      .capability()
      .catch((e: unknown) => e)) as MailboxError;
    expect(error).toBeInstanceOf(MailboxError);
    expect(error.code).toBe('grant_revoked');
    expect(error.message).toContain(`The connected account in ${dir} can no longer be used`);
    expect(error.hint).toContain(`agent-mailbox connect --credentials-dir ${dir}`);
    expect(error.message).not.toContain(String(grant['refreshToken']));
  });

  it('explains a grant lost to a renewal whose answer never got stored (the service saw the token twice)', async () => {
    const dir = await connected();
    const grant = await storedGrant(dir);
    // A renewal sent this refresh token and died before storing the answer: the journal says so…
    await writeFile(
      join(dir, 'renewal-pending.json'),
      JSON.stringify({
        pid: 999_999,
        startedAt: '2026-01-01T00:00:00.000Z',
        refreshTokenDigest: refreshTokenDigest(String(grant['refreshToken'])),
      }),
      { mode: 0o600 },
    );
    // …and the service did rotate it.
    expect((await refreshDirectly(sandbox, dir)).status).toBe(200);
    await expireAccessTokens(dir);
    const error = (await registry()
      .open(dir)
      .capability()
      .catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('grant_revoked');
    expect(error.message).toMatch(
      /An earlier renewal \(pid 999999, 2026-01-01T00:00:00\.000Z\) was interrupted after sending this refresh token/,
    );
  });

  it('keeps the grant when an interrupted renewal never reached the service: the journal is cleared by the next one', async () => {
    const dir = await connected();
    const grant = await storedGrant(dir);
    await writeFile(
      join(dir, 'renewal-pending.json'),
      JSON.stringify({
        pid: 999_999,
        startedAt: '2026-01-01T00:00:00.000Z',
        refreshTokenDigest: refreshTokenDigest(String(grant['refreshToken'])),
      }),
      { mode: 0o600 },
    );
    await expireAccessTokens(dir);
    const account = registry().open(dir);
    await account.capability();
    expect(account.stats().accessTokenRenewals).toBe(1);
    await expect(stat(join(dir, 'renewal-pending.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await storedGrant(dir))['generation']).toBe(2);
  });
});
