import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AccountContext } from '../../../src/auth/account-registry.js';
import type { PowAuthClient, SolvedChallenge } from '../../../src/auth/pow-auth-client.js';
import { TokenChain } from '../../../src/auth/token-chain.js';
import type { Config } from '../../../src/config.js';
import { CredentialStore } from '../../../src/credentials/credential-store.js';
import { acquireLock } from '../../../src/credentials/directory-lock.js';
import { MailboxError } from '../../../src/errors.js';
import { Deadline } from '../../../src/gate/deadline.js';
import type { Logger } from '../../../src/log.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * The token chain against a scripted auth host: every answer is immediate and every token's life
 * is set by the test's clock, so renewal margins, the refresh-ahead window and the background
 * pause are checked at their edges without a proof of work or a wait (the sandbox integration test,
 * test/integration/auth-token-chain.test.ts, runs the same chain against the real auth host).
 */

const apiKey = 'amk_token_chain_original_key_0001';
const credentials = { apiKey, inboxId: 'chain', inbox: 'chain@example.test' };

let serial = 0;
/** An unsigned JWT whose life runs from `iat` to `exp` (seconds) on the test's clock. */
function jwt(claims: { exp?: number; iat?: number; inboxId?: string }): string {
  serial += 1;
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ ...claims, n: serial })}.`;
}

interface Script {
  /** Seconds a minted capability / an opened session lives. */
  capabilityTtl: number;
  sessionTtl: number;
  mintFails?: MailboxError;
  solveFails?: MailboxError;
  /** The next solve fails with this, later ones succeed. */
  solveFailsOnce?: MailboxError;
  /** Holds solveChallenge until released. */
  solveGate?: Promise<void>;
}

interface Harness {
  chain: TokenChain;
  ctx: AccountContext;
  dir: string;
  clock: { now: () => number; advance(seconds: number): void; seconds(): number };
  calls: {
    solves: number;
    sessions: string[];
    mints: string[];
    solveCalls: Array<{ signal?: AbortSignal; deadline?: Deadline }>;
    sessionCalls: Array<{ signal?: AbortSignal; deadline?: Deadline }>;
  };
  logs: string[];
  script: Script;
  close: AbortController;
  /** Lock acquisitions begun (the chain's wait for the auth lock, foreground or background). */
  lockWaits(): number;
  /** Reads of capability.jwt that have returned. */
  capabilityReads(): number;
}

/** Waits, turn by turn of the event loop, until `condition` holds (a state the test can see, not a time). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 10_000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Counts the waits a deadline runs off its clock. */
function countWaitsOffTheClock(deadline: Deadline): () => number {
  let waits = 0;
  const offTheClock = deadline.offTheClock.bind(deadline);
  deadline.offTheClock = (wait) => {
    waits += 1;
    return offTheClock(wait);
  };
  return () => waits;
}

async function harness(options: { refreshAhead?: boolean; script?: Partial<Script> } = {}): Promise<Harness> {
  const dir = await tempCredentialsDir();
  let nowMs = 1_800_000_000_000;
  const clock = {
    now: () => nowMs,
    advance: (seconds: number) => void (nowMs += seconds * 1000),
    seconds: () => nowMs / 1000,
  };
  const script: Script = { capabilityTtl: 120, sessionTtl: 3600, ...options.script };
  const calls: Harness['calls'] = { solves: 0, sessions: [], mints: [], solveCalls: [], sessionCalls: [] };
  const logs: string[] = [];
  const log: Logger = {
    error: (m) => logs.push(`error ${m}`),
    warn: (m) => logs.push(`warn ${m}`),
    info: (m) => logs.push(`info ${m}`),
    debug: (m) => logs.push(`debug ${m}`),
  };
  const auth = {
    async solveChallenge(call: { signal?: AbortSignal; deadline?: Deadline } = {}): Promise<SolvedChallenge> {
      calls.solves += 1;
      calls.solveCalls.push(call);
      await script.solveGate;
      if (script.solveFails) throw script.solveFails;
      const once = script.solveFailsOnce;
      script.solveFailsOnce = undefined;
      if (once) throw once;
      return {
        challengeJwt: jwt({ exp: clock.seconds() + 60 }),
        nonce: '0',
        powHex: '00',
        pow: {} as SolvedChallenge['pow'],
      };
    },
    async openSession(
      _solved: SolvedChallenge,
      body: { apiKey: string },
      call: { signal?: AbortSignal; deadline?: Deadline } = {},
    ) {
      calls.sessions.push(body.apiKey);
      calls.sessionCalls.push(call);
      const now = clock.seconds();
      return { sessionJwt: jwt({ iat: now, exp: now + script.sessionTtl, inboxId: 'chain' }) };
    },
    async mintCapability(session: string) {
      calls.mints.push(session);
      if (script.mintFails) throw script.mintFails;
      const now = clock.seconds();
      return jwt({ iat: now, exp: now + script.capabilityTtl, inboxId: 'chain' });
    },
  };
  const store = new CredentialStore(dir);
  await store.writeCredentials(credentials);
  let capabilityReads = 0;
  const readToken = store.readToken.bind(store);
  store.readToken = async (kind) => {
    const token = await readToken(kind);
    if (kind === 'capability') capabilityReads += 1;
    return token;
  };
  let lockWaits = 0;
  const ctx: AccountContext = {
    dir,
    store,
    log,
    stats: { powSolves: 0, sessionRenewals: 0, capabilityMints: 0, backgroundRenewals: 0, accessTokenRenewals: 0 },
    lock: {
      waitMs: 5_000,
      whileWaiting: (wait) => {
        lockWaits += 1;
        return wait();
      },
    },
    config: async () => ({ timeoutMs: 4_321 }) as Config,
    authClient: () => auth as unknown as PowAuthClient,
  };
  const close = new AbortController();
  const chain = new TokenChain(ctx, {
    refreshAhead: options.refreshAhead ?? false,
    closeSignal: close.signal,
    now: clock.now,
  });
  return {
    chain,
    ctx,
    dir,
    clock,
    calls,
    logs,
    script,
    close,
    lockWaits: () => lockWaits,
    capabilityReads: () => capabilityReads,
  };
}

/** A session and a capability on disk, living from now for the given seconds. */
async function tokensOnDisk(
  h: Harness,
  sessionTtl: number,
  capabilityTtl: number,
): Promise<{ session: string; capability: string }> {
  const now = h.clock.seconds();
  const session = jwt({ iat: now, exp: now + sessionTtl });
  const capability = jwt({ iat: now, exp: now + capabilityTtl });
  await h.ctx.store.writeToken('session', session);
  await h.ctx.store.writeToken('capability', capability);
  return { session, capability };
}

const onDisk = async (h: Harness, file: string): Promise<string> => (await readFile(join(h.dir, file), 'utf8')).trim();

describe('TokenChain: when a token is renewed', () => {
  it('reuses a capability until 15 s before its expiry, then mints one from the session without a proof of work', async () => {
    const h = await harness();
    const { session, capability } = await tokensOnDisk(h, 3600, 120);
    h.clock.advance(120 - 16);
    expect(await h.chain.get(credentials)).toBe(capability);
    expect(h.calls.mints).toEqual([]);
    h.clock.advance(1);
    const fresh = await h.chain.get(credentials);
    expect(fresh).not.toBe(capability);
    expect(h.calls.mints).toEqual([session]);
    expect(h.calls.solves).toBe(0);
    expect(await onDisk(h, 'capability.jwt')).toBe(fresh);
    expect(h.ctx.stats).toMatchObject({ capabilityMints: 1, powSolves: 0, sessionRenewals: 0 });
    // The fresh one is then held in memory: no file read or mint for the next call.
    expect(await h.chain.get(credentials)).toBe(fresh);
    expect(h.calls.mints).toHaveLength(1);
  });

  it('renews a short-lived capability a quarter of its life before expiry when that is under 15 s', async () => {
    const h = await harness();
    const { capability } = await tokensOnDisk(h, 3600, 20);
    h.clock.advance(14);
    expect(await h.chain.get(credentials)).toBe(capability);
    h.clock.advance(1);
    expect(await h.chain.get(credentials)).not.toBe(capability);
    expect(h.calls.mints).toHaveLength(1);
  });

  it('mints from a session with more than 30 s left, and logs in with a proof of work from 30 s on', async () => {
    const h = await harness();
    const { session } = await tokensOnDisk(h, 3600, 1);
    h.clock.advance(3600 - 31);
    await h.chain.get(credentials);
    expect(h.calls).toMatchObject({ solves: 0, mints: [session] });

    const late = await harness();
    await tokensOnDisk(late, 3600, 1);
    late.clock.advance(3600 - 30);
    await late.chain.get(credentials);
    expect(late.calls.solves).toBe(1);
    expect(late.calls.sessions).toEqual([apiKey]);
    const renewed = await onDisk(late, 'session.jwt');
    expect(late.calls.mints).toEqual([renewed]);
    expect(late.ctx.stats).toMatchObject({ powSolves: 1, sessionRenewals: 1, capabilityMints: 1 });
  });

  it('keeps a short-lived session to its last tenth, not to 30 s, before logging in again', async () => {
    const h = await harness();
    const { session } = await tokensOnDisk(h, 100, 1);
    h.clock.advance(89);
    await h.chain.get(credentials);
    expect(h.calls).toMatchObject({ solves: 0, mints: [session] });
    h.chain.invalidate(await onDisk(h, 'capability.jwt'));
    h.clock.advance(1);
    await h.chain.get(credentials);
    expect(h.calls.solves).toBe(1);
  });

  it('never reuses a capability the JMAP host refused, even from the file', async () => {
    const h = await harness();
    const { capability } = await tokensOnDisk(h, 3600, 120);
    expect(await h.chain.get(credentials)).toBe(capability);
    h.chain.invalidate(capability);
    const fresh = await h.chain.get(credentials);
    expect(fresh).not.toBe(capability);
    expect(h.calls.mints).toHaveLength(1);
    h.chain.invalidate('some other token');
    expect(await h.chain.get(credentials)).toBe(fresh);
  });

  it('takes a capability another process stored while this one waited for the lock, instead of minting', async () => {
    const h = await harness();
    await tokensOnDisk(h, 3600, 1);
    h.clock.advance(2);
    const release = await acquireLock(h.dir, 'auth');
    const pending = h.chain.get(credentials);
    await until(() => h.lockWaits() === 1, 'the chain to wait for the lock');
    const theirs = jwt({ iat: h.clock.seconds(), exp: h.clock.seconds() + 120 });
    await h.ctx.store.writeToken('capability', theirs);
    await release();
    expect(await pending).toBe(theirs);
    expect(h.calls).toMatchObject({ solves: 0, mints: [] });
  });

  it("hands out a valid capability from the file without waiting for another process's renewal", async () => {
    const h = await harness();
    const { capability } = await tokensOnDisk(h, 3600, 120);
    const release = await acquireLock(h.dir, 'auth');
    try {
      h.ctx.lock = { ...h.ctx.lock, waitMs: 200 };
      expect(await h.chain.get(credentials)).toBe(capability);
    } finally {
      await release();
    }
  });

  it("waits for another process's renewal off the call's clock, and stops waiting when the call is cancelled", async () => {
    const h = await harness();
    await tokensOnDisk(h, 3600, 1);
    h.clock.advance(2);
    const release = await acquireLock(h.dir, 'auth');
    const deadline = Deadline.start({ timeoutMs: 1_000, now: h.clock.now });
    const waitsOffTheClock = countWaitsOffTheClock(deadline);
    const waiting = h.chain.get(credentials, { deadline });
    await until(() => waitsOffTheClock() === 1, 'the lock wait off the clock');
    h.clock.advance(30);
    await release();
    expect(await waiting).toMatch(/^eyJ/);
    expect(deadline.spentMs()).toBe(0);

    const other = await harness();
    await tokensOnDisk(other, 3600, 1);
    other.clock.advance(2);
    const held = await acquireLock(other.dir, 'auth');
    try {
      const cancel = new AbortController();
      const pending = other.chain.get(credentials, { signal: cancel.signal });
      await until(() => other.lockWaits() === 1, 'the chain to wait for the lock');
      cancel.abort();
      await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    } finally {
      await held();
    }
  });

  it('logs in with the apiKey it was given when credentials.json went missing', async () => {
    const h = await harness();
    await tokensOnDisk(h, 10, 1);
    h.clock.advance(20);
    await rm(join(h.dir, 'credentials.json'));
    await h.chain.get(credentials);
    expect(h.calls.sessions).toEqual([apiKey]);
  });

  it('shares one renewal between concurrent callers', async () => {
    const h = await harness();
    await tokensOnDisk(h, 3600, 1);
    h.clock.advance(2);
    const tokens = await Promise.all([h.chain.get(credentials), h.chain.get(credentials), h.chain.get(credentials)]);
    expect(new Set(tokens).size).toBe(1);
    expect(h.calls.mints).toHaveLength(1);
  });

  it('logs in with the apiKey stored now, when another process rotated it', async () => {
    const h = await harness();
    await tokensOnDisk(h, 10, 1);
    h.clock.advance(20);
    await h.ctx.store.writeCredentials({ ...credentials, apiKey: 'amk_token_chain_rotated_key_0002' });
    await h.chain.get(credentials);
    expect(h.calls.sessions).toEqual(['amk_token_chain_rotated_key_0002']);
  });

  it('falls back to a proof-of-work login when the auth host refuses the session, and says so', async () => {
    const h = await harness({
      script: { mintFails: new MailboxError({ code: 'auth_rejected', message: 'no', hint: 'h' }) },
    });
    await tokensOnDisk(h, 3600, 1);
    h.clock.advance(2);
    await expect(h.chain.get(credentials)).rejects.toMatchObject({ code: 'auth_rejected' });
    expect(h.calls.solves).toBe(1);
    expect(h.calls.mints).toHaveLength(2);
    expect(h.logs).toContain(
      'info The auth host refused the stored session; logging in again with a fresh proof of work.',
    );
  });

  it('does not log in again when minting fails for another reason', async () => {
    const h = await harness({
      script: { mintFails: new MailboxError({ code: 'server_error', message: 'down', hint: 'h' }) },
    });
    await tokensOnDisk(h, 3600, 1);
    h.clock.advance(2);
    await expect(h.chain.get(credentials)).rejects.toMatchObject({ code: 'server_error' });
    expect(h.calls.solves).toBe(0);
  });

  it('rejects a capability the auth host sent that is not a readable token, and stores nothing', async () => {
    const h = await harness();
    const { capability } = await tokensOnDisk(h, 3600, 1);
    h.ctx.authClient = () => ({ mintCapability: async () => 'not-a-jwt' }) as unknown as PowAuthClient;
    h.clock.advance(2);
    await expect(h.chain.get(credentials)).rejects.toMatchObject({ code: 'bad_response' });
    expect(await onDisk(h, 'capability.jwt')).toBe(capability);
  });

  it('uses the capability and session that register obtained', async () => {
    const h = await harness();
    const now = h.clock.seconds();
    const session = jwt({ iat: now, exp: now + 3600 });
    const capability = jwt({ iat: now, exp: now + 120 });
    h.chain.adopt(session, capability);
    expect(await h.chain.get(credentials)).toBe(capability);
    expect(h.calls).toMatchObject({ solves: 0, mints: [] });
  });
});

describe('TokenChain: a caller cancelled while others share its renewal', () => {
  it.each(['pow_cancelled', 'cancelled'] as const)(
    'ends the caller cancelled with %s, and the other caller still gets a token',
    async (code) => {
      let open!: () => void;
      const h = await harness({ script: { solveGate: new Promise<void>((resolve) => (open = resolve)) } });
      await tokensOnDisk(h, 10, 1);
      h.clock.advance(20);
      const first = h.chain.get(credentials);
      await until(() => h.calls.solves === 1, "the first caller's renewal to reach the solver");
      const second = h.chain.get(credentials);
      // Its read of the file returned; the next turn it joins the renewal in progress.
      await until(() => h.capabilityReads() === 3, "the second caller's read");
      await new Promise((resolve) => setImmediate(resolve));
      h.script.solveFailsOnce = new MailboxError({ code, message: 'cancelled', hint: 'h' });
      open();
      await expect(first).rejects.toMatchObject({ code });
      expect(await second).toMatch(/^eyJ/);
      expect(h.calls.solves).toBe(2);
    },
  );

  it('ends every caller on an error that is not a cancellation', async () => {
    const h = await harness({
      script: { solveFails: new MailboxError({ code: 'server_error', message: 'down', hint: 'h' }) },
    });
    await tokensOnDisk(h, 10, 1);
    h.clock.advance(20);
    const results = await Promise.allSettled([h.chain.get(credentials), h.chain.get(credentials)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(h.calls.solves).toBe(1);
  });

  it('ends a sharing caller whose own signal was aborted', async () => {
    let open!: () => void;
    const h = await harness({ script: { solveGate: new Promise<void>((resolve) => (open = resolve)) } });
    await tokensOnDisk(h, 10, 1);
    h.clock.advance(20);
    const mine = new AbortController();
    const first = h.chain.get(credentials);
    await until(() => h.calls.solves === 1, "the first caller's renewal to reach the solver");
    const second = h.chain.get(credentials, { signal: mine.signal });
    await until(() => h.capabilityReads() === 3, "the second caller's read");
    await new Promise((resolve) => setImmediate(resolve));
    mine.abort();
    h.script.solveFails = new MailboxError({ code: 'cancelled', message: 'cancelled', hint: 'h' });
    open();
    await expect(first).rejects.toMatchObject({ code: 'cancelled' });
    await expect(second).rejects.toMatchObject({ code: 'cancelled' });
    expect(h.calls.solves).toBe(1);
  });
});

describe('TokenChain: refresh-ahead', () => {
  it('renews a session in its last 5 minutes in the background, with the stored apiKey and a timeout of its own', async () => {
    const h = await harness({ refreshAhead: true });
    const { session, capability } = await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3600 - 301);
    expect(await h.chain.get(credentials)).toBe(capability);
    await h.chain.settled();
    expect(h.ctx.stats.backgroundRenewals).toBe(0);

    h.clock.advance(1);
    expect(await h.chain.get(credentials)).toBe(capability);
    await h.chain.settled();
    expect(h.ctx.stats).toMatchObject({ backgroundRenewals: 1, powSolves: 1, sessionRenewals: 1, capabilityMints: 0 });
    expect(h.calls.sessions).toEqual([apiKey]);
    const renewed = await onDisk(h, 'session.jwt');
    expect(renewed).not.toBe(session);
    for (const call of [h.calls.solveCalls[0], h.calls.sessionCalls[0]]) {
      expect(call?.signal).toBe(h.close.signal);
      expect(call?.deadline?.timeoutMs).toBe(4_321);
    }
    expect(h.logs).toContain('debug Session renewed ahead of expiry.');

    // Renewed: the next call starts nothing more.
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.ctx.stats.backgroundRenewals).toBe(1);
  });

  it('uses the last fifth of a short session as its window', async () => {
    const h = await harness({ refreshAhead: true });
    await tokensOnDisk(h, 100, 100);
    await h.chain.get(credentials);
    h.clock.advance(79);
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.ctx.stats.backgroundRenewals).toBe(0);
    h.clock.advance(1);
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.ctx.stats.backgroundRenewals).toBe(1);
  });

  it('starts nothing without refreshAhead, or once the registry closed', async () => {
    const off = await harness({ refreshAhead: false });
    await tokensOnDisk(off, 3600, 3600);
    off.clock.advance(3500);
    await off.chain.get(credentials);
    await off.chain.settled();
    expect(off.ctx.stats.backgroundRenewals).toBe(0);

    const closed = await harness({ refreshAhead: true });
    await tokensOnDisk(closed, 3600, 3600);
    closed.clock.advance(3500);
    closed.close.abort();
    await closed.chain.get(credentials);
    await closed.chain.settled();
    expect(closed.ctx.stats.backgroundRenewals).toBe(0);
  });

  it('after a failed renewal waits 10 s before trying again, and warns once', async () => {
    const h = await harness({
      refreshAhead: true,
      script: { solveFails: new MailboxError({ code: 'server_error', message: 'auth host down', hint: 'h' }) },
    });
    await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3500);
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.calls.solves).toBe(1);
    expect(h.logs.filter((l) => l.startsWith('warn'))).toEqual([
      'warn Background session renewal failed (the next request will retry): auth host down',
    ]);
    h.clock.advance(9.999);
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.calls.solves).toBe(1);
    h.clock.advance(0.001);
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.calls.solves).toBe(2);
  });

  it('takes a session without an iat to its last 5 minutes', async () => {
    const h = await harness({ refreshAhead: true });
    const now = h.clock.seconds();
    await h.ctx.store.writeToken('session', jwt({ exp: now + 299 }));
    await h.ctx.store.writeToken('capability', jwt({ exp: now + 120 }));
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.ctx.stats.backgroundRenewals).toBe(1);
  });

  it.each([
    ['is missing', undefined],
    ['has no expiry', jwt({ iat: 1 })],
  ])('renews in the background when the session file %s', async (_case, file) => {
    const h = await harness({ refreshAhead: true });
    const now = h.clock.seconds();
    await h.ctx.store.writeToken('capability', jwt({ iat: now, exp: now + 120 }));
    if (file) await h.ctx.store.writeToken('session', file);
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.ctx.stats.backgroundRenewals).toBe(1);
    expect(h.logs.filter((l) => l.startsWith('warn'))).toEqual([]);
  });

  it('opens the renewed session only under the auth lock, after a foreground renewal holding it', async () => {
    let open!: () => void;
    const h = await harness({
      refreshAhead: true,
      script: { solveGate: new Promise<void>((resolve) => (open = resolve)) },
    });
    await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3500);
    await h.chain.get(credentials);
    const release = await acquireLock(h.dir, 'auth');
    open();
    await until(() => h.lockWaits() === 1, 'the background renewal to wait for the lock');
    // Not a synchronisation: a few of the waiter's 25–50 ms polls, in which an open without the lock would show.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.calls.sessions).toEqual([]);
    await release();
    await h.chain.settled();
    expect(h.calls.sessions).toEqual([apiKey]);
  });

  it('stops a background renewal waiting for the auth lock when the registry closes, quietly', async () => {
    let open!: () => void;
    const h = await harness({
      refreshAhead: true,
      script: { solveGate: new Promise<void>((resolve) => (open = resolve)) },
    });
    await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3500);
    await h.chain.get(credentials);
    const release = await acquireLock(h.dir, 'auth');
    try {
      open();
      await until(() => h.lockWaits() === 1, 'the background renewal to wait for the lock');
      const closedAt = Date.now();
      h.close.abort();
      await h.chain.settled();
      expect(Date.now() - closedAt).toBeLessThan(1_000);
    } finally {
      await release();
    }
    expect(h.calls.sessions).toEqual([]);
    expect(h.logs.filter((l) => l.startsWith('warn'))).toEqual([]);
  });

  it('leaves the renewal to another process that holds the refresh-ahead lock', async () => {
    const h = await harness({ refreshAhead: true });
    await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3500);
    const release = await acquireLock(h.dir, 'refresh-ahead');
    try {
      await h.chain.get(credentials);
      await h.chain.settled();
    } finally {
      await release();
    }
    expect(h.calls.solves).toBe(0);
  });

  it('adopts a session another process renewed instead of solving again', async () => {
    const h = await harness({ refreshAhead: true });
    const { capability } = await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3500);
    const now = h.clock.seconds();
    h.chain.adopt(jwt({ iat: now - 3500, exp: now + 100 }), capability);
    const fresh = jwt({ iat: now, exp: now + 3600 });
    await h.ctx.store.writeToken('session', fresh);
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.calls.solves).toBe(0);
    // Adopted: the next call sees a session far from expiry and starts nothing.
    await h.chain.get(credentials);
    await h.chain.settled();
    expect(h.calls.solves).toBe(0);
  });

  it('does not open a session when another process renewed it while this one was solving', async () => {
    let open!: () => void;
    const h = await harness({
      refreshAhead: true,
      script: { solveGate: new Promise<void>((resolve) => (open = resolve)) },
    });
    await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3500);
    await h.chain.get(credentials);
    await until(() => h.calls.solves === 1, 'the background solve');
    const now = h.clock.seconds();
    await h.ctx.store.writeToken('session', jwt({ iat: now, exp: now + 3600 }));
    open();
    await h.chain.settled();
    expect(h.calls.solves).toBe(1);
    expect(h.calls.sessions).toEqual([]);
  });

  it('lets a call whose session ran out wait for the background proof of work instead of solving a second', async () => {
    let open!: () => void;
    const h = await harness({
      refreshAhead: true,
      script: { solveGate: new Promise<void>((resolve) => (open = resolve)) },
    });
    await tokensOnDisk(h, 3600, 3600);
    h.clock.advance(3500);
    await h.chain.get(credentials);
    // The session and the capability now run out while the background solve is still going.
    h.clock.advance(120);
    const deadline = Deadline.start({ timeoutMs: 1_000, now: h.clock.now });
    const waitsOffTheClock = countWaitsOffTheClock(deadline);
    const waiting = h.chain.get(credentials, { deadline });
    await until(() => waitsOffTheClock() === 1, 'the call to wait for the background solve');
    h.clock.advance(5);
    open();
    const capability = await waiting;
    expect(capability).toMatch(/^eyJ/);
    expect(h.calls.solves).toBe(1);
    expect(h.calls.mints).toEqual([await onDisk(h, 'session.jwt')]);
    // The wait ran off the call's clock: the 5 s it took are not spent of the 1 s timeout.
    expect(deadline.spentMs()).toBe(0);
  });
});

describe("TokenChain: a token file that is not this inbox's", () => {
  it('is not used: a capability on disk that fails to decode is renewed', async () => {
    const h = await harness();
    await tokensOnDisk(h, 3600, 120);
    await writeFile(join(h.dir, 'capability.jwt'), 'garbage\n');
    expect(await h.chain.get(credentials)).toMatch(/^eyJ/);
    expect(h.calls.mints).toHaveLength(1);
  });
});
