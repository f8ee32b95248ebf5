import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAccountRegistry, type AccountRegistryOptions } from '../../src/auth/create-account-registry.js';
import { decodeJwtClaims, tokenClaims } from '../../src/http/bearer-token.js';
import { silentLogger } from '../../src/log.js';
import type { RunningSandbox, SandboxOptions } from '../../sandbox/src/start-sandbox.js';
import { createFakeBackend, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { movableClock } from '../../sandbox/test/helpers/movable-clock.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// Short TTLs (spec §8 says 1 h / 2 min) so expiry happens within a test.
async function sandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startTestSandbox({ rateLimit: false, createBackend: createFakeBackend().factory, ...options });
}

function configInputs(s: RunningSandbox): AccountRegistryOptions['configInputs'] {
  return { flags: { authUrl: s.authUrl, apiUrl: s.apiUrl, scryptSalt: s.salt, inboxDomain: s.domain }, env: {} };
}

function registryFor(s: RunningSandbox, extra: Partial<AccountRegistryOptions> = {}) {
  return createAccountRegistry({ configInputs: configInputs(s), log: silentLogger, ...extra });
}

const unsignedJwt = (claims: Record<string, unknown>): string =>
  `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
const expiredToken = (): string =>
  unsignedJwt({ exp: Math.floor(Date.now() / 1000) - 60, iat: Math.floor(Date.now() / 1000) - 120 });

async function registered(s: RunningSandbox, username = 'alice'): Promise<string> {
  const dir = await tempCredentialsDir();
  await registryFor(s).open(dir).register({ username, watch: 'on-demand' });
  return dir;
}

describe('the token chain', () => {
  it('reuses a valid capability without asking the auth host again', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    const account = registryFor(s).open(dir);
    const before = s.stats();
    const first = await account.capability();
    expect(await account.capability()).toBe(first);
    expect(s.stats()).toEqual(before);
  });

  // Time is moved with an injected clock (sandbox/test/helpers/movable-clock.ts), never waited for.
  it('re-mints a capability near its expiry from the session without a proof of work', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    const clock = movableClock();
    const account = registryFor(s, { now: clock.now }).open(dir);
    const first = await account.capability();
    clock.moveTo(first, 5);
    const before = s.stats();
    const second = await account.capability();
    expect(second).not.toBe(first);
    expect(s.stats()).toEqual({ ...before, capabilitiesIssued: before.capabilitiesIssued + 1 });
    expect(account.stats()).toMatchObject({ powSolves: 0, capabilityMints: 1 });
  });

  it('logs in with a fresh proof of work once the session has expired', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    const clock = movableClock();
    const account = registryFor(s, { now: clock.now }).open(dir);
    await account.capability();
    clock.moveTo((await readFile(join(dir, 'session.jwt'), 'utf8')).trim(), -1);
    const before = s.stats();
    await account.capability();
    expect(s.stats().logins).toBe(before.logins + 1);
    expect(account.stats()).toMatchObject({ powSolves: 1, sessionRenewals: 1, capabilityMints: 1 });
  });

  it('falls back to a proof-of-work login when /capability refuses the stored session (401)', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    // A session the host cannot verify (as after a key rotation), with a far expiry so the client trusts it.
    await writeFile(join(dir, 'session.jwt'), unsignedJwt({ exp: Math.floor(Date.now() / 1000) + 3600 }));
    await writeFile(join(dir, 'capability.jwt'), expiredToken());
    const account = registryFor(s).open(dir);
    const before = s.stats();
    expect(await account.capability()).toMatch(/^eyJ/);
    expect(s.stats().logins).toBe(before.logins + 1);
    expect(account.stats().powSolves).toBe(1);
  });

  it('mints a new capability without a proof of work after the JMAP host rejected one', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    const account = registryFor(s).open(dir);
    const rejected = await account.capability();
    account.invalidateCapability(rejected);
    const fresh = await account.capability();
    expect(fresh).not.toBe(rejected);
    expect(account.stats()).toMatchObject({ powSolves: 0, capabilityMints: 1 });
  });

  it('solves exactly one proof of work when two registries share a directory with expired tokens', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    await writeFile(join(dir, 'session.jwt'), expiredToken());
    await writeFile(join(dir, 'capability.jwt'), expiredToken());
    const [a, b] = [registryFor(s).open(dir), registryFor(s).open(dir)];
    const before = s.stats();
    const [ca, cb] = await Promise.all([a.capability(), b.capability()]);
    const secondsLeft = (jwt: string): number =>
      decodeJwtClaims(jwt, tokenClaims, 'capability').exp - Date.now() / 1000;
    expect(secondsLeft(ca)).toBeGreaterThan(10);
    expect(secondsLeft(cb)).toBeGreaterThan(10);
    expect(s.stats().logins - before.logins).toBe(1);
    expect(a.stats().powSolves + b.stats().powSolves).toBe(1);
  });

  it('solves exactly one proof of work when four processes share a directory with expired tokens', async () => {
    const built = fileURLToPath(new URL('../../dist/auth/create-account-registry.js', import.meta.url));
    expect(existsSync(built), 'run `npx tsc -p tsconfig.json` first (npm test builds)').toBe(true);
    const s = await sandbox();
    const dir = await registered(s);
    await writeFile(join(dir, 'session.jwt'), expiredToken());
    await writeFile(join(dir, 'capability.jwt'), expiredToken());
    const script = `
      const { createAccountRegistry } = await import(${JSON.stringify(built)});
      const registry = createAccountRegistry({ configInputs: ${JSON.stringify(configInputs(s))}, log: { error() {}, warn() {}, info() {}, debug() {} } });
      const account = registry.open(${JSON.stringify(dir)});
      await account.capability();
      process.stdout.write(JSON.stringify(account.stats()));`;
    const before = s.stats();
    const outputs = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
              stdio: ['ignore', 'pipe', 'inherit'],
            });
            let out = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.on('error', reject);
            child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}`))));
          }),
      ),
    );
    const solves = outputs.map((o) => (JSON.parse(o) as { powSolves: number }).powSolves);
    expect(solves.reduce((x, y) => x + y, 0)).toBe(1);
    expect(s.stats().logins - before.logins).toBe(1);
  });

  it('renews the session in the background so requests never wait for a proof of work', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    const clock = movableClock();
    const registry = registryFor(s, { refreshAhead: true, now: clock.now });
    const account = registry.open(dir);
    await account.capability();
    for (let expiry = 1; expiry <= 3; expiry++) {
      const session = (await readFile(join(dir, 'session.jwt'), 'utf8')).trim();
      // Four minutes left: inside the 5-minute refresh-ahead window, far from the 30 s renewal margin.
      clock.moveTo(session, 240);
      const before = account.stats();
      await account.capability();
      // The request itself only minted a capability; the proof of work runs behind it.
      expect(account.stats().powSolves - before.powSolves, `expiry ${expiry}`).toBe(0);
      await account.settled();
      expect(account.stats().backgroundRenewals, `expiry ${expiry}`).toBe(expiry);
      expect((await readFile(join(dir, 'session.jwt'), 'utf8')).trim()).not.toBe(session);
    }
    registry.close();
    // Every proof of work happened in the background: none on the request path.
    expect(account.stats().powSolves).toBe(account.stats().backgroundRenewals);
  });

  it('leaves a session outside the refresh-ahead window alone', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    const clock = movableClock();
    const registry = registryFor(s, { refreshAhead: true, now: clock.now });
    const account = registry.open(dir);
    await account.capability();
    clock.moveTo((await readFile(join(dir, 'session.jwt'), 'utf8')).trim(), 301);
    await account.capability();
    await account.settled();
    registry.close();
    expect(account.stats()).toMatchObject({ backgroundRenewals: 0, powSolves: 0 });
  });

  it('cancels a background renewal when the registry closes', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    // A session 100 s from expiry is inside the 5-minute refresh-ahead window.
    const now = Math.floor(Date.now() / 1000);
    await writeFile(join(dir, 'session.jwt'), unsignedJwt({ iat: now - 3500, exp: now + 100 }));
    let challengeRequested!: () => void;
    const requested = new Promise<void>((resolve) => (challengeRequested = resolve));
    // The auth host "hangs" on the challenge until the request is aborted.
    const hangingFetch: typeof fetch = (input, init) => {
      if (!String(input).endsWith('/api/v1/challenge')) return fetch(input, init);
      challengeRequested();
      return new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    };
    const registry = registryFor(s, { refreshAhead: true, fetch: hangingFetch });
    const account = registry.open(dir);
    await account.capability();
    await requested;
    const closedAt = Date.now();
    registry.close();
    await account.settled();
    expect(Date.now() - closedAt).toBeLessThan(1_000);
    expect(account.stats()).toMatchObject({ backgroundRenewals: 1, powSolves: 0 });
  });

  it('starts no background work without refreshAhead', async () => {
    const s = await sandbox();
    const dir = await registered(s);
    const clock = movableClock();
    const account = registryFor(s, { now: clock.now }).open(dir);
    await account.capability();
    clock.moveTo((await readFile(join(dir, 'session.jwt'), 'utf8')).trim(), 240);
    await account.capability();
    await account.settled();
    expect(account.stats()).toMatchObject({ backgroundRenewals: 0, powSolves: 0 });
  });
});
