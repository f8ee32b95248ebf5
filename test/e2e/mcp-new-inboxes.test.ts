import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { markInboxWaking } from '../../src/policy/records/wake-read-only.js';
import { connectMcp, printStderrOnFailure, resultText, type McpConnection } from '../helpers/connect-mcp.js';
import { startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * An agent that controls only its next MCP tool call tries to get a second inbox: `register` into a
 * fresh credentials_dir, by sign-up or by logging in with a key it learnt. The operator's
 * `newInboxes: off` on the default inbox's own layer binds that new directory too, whatever the new
 * directory's own layer says; and while any wake runs, no register or login goes through at all.
 */

let world: GuardWorld;
let server: McpConnection;
let fresh = 0;

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'newin');
  server = await connectMcp({ env: { ...world.env, AGENT_MAILBOX_CREDENTIALS_DIR: world.alice.dir } });
});
afterAll(async () => server.close());
afterEach(() => world.clearPolicies());
printStderrOnFailure(() => [server]);

async function register(args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const result = await server.client.callTool(
    { name: 'register', arguments: { watch: 'on-demand', ...args } },
    undefined,
    { timeout: 60_000 },
  );
  return { isError: (result as { isError?: boolean }).isError === true, text: resultText(result) };
}

function freshDir(): string {
  fresh += 1;
  return join(world.base, `fresh-${fresh}`);
}

const username = (tag: string): string => `nw${tag}-${process.pid % 1000}`;

describe('newInboxes off on the default inbox binds every new directory', () => {
  it('refuses a sign-up into a fresh credentials_dir, before any proof of work', async () => {
    await world.writeInboxPolicy(world.alice.dir, { newInboxes: 'off' });
    const before = world.sandbox.stats();
    const dir = freshDir();
    const result = await register({ username: username('a'), credentials_dir: dir });
    expect(result.isError, result.text).toBe(true);
    expect(result.text).toContain('newInboxes=off');
    expect(result.text).toContain(join(world.alice.dir, 'policy.json'));
    expect(world.sandbox.stats()).toEqual(before);
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
  });

  it('refuses a login with a known apiKey into a fresh credentials_dir', async () => {
    await world.writeInboxPolicy(world.alice.dir, { newInboxes: 'off' });
    const before = world.sandbox.stats();
    const result = await register({ api_key: await world.bob.revealApiKey(), credentials_dir: freshDir() });
    expect(result.isError, result.text).toBe(true);
    expect(result.text).toContain('newInboxes=off');
    expect(world.sandbox.stats()).toEqual(before);
  });

  it("is not undone by the new directory's own layer saying on", async () => {
    await world.writeInboxPolicy(world.alice.dir, { newInboxes: 'off' });
    const dir = freshDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'policy.json'), JSON.stringify({ version: 1, newInboxes: 'on' }), { mode: 0o600 });
    const result = await register({ username: username('b'), credentials_dir: dir });
    expect(result.isError, result.text).toBe(true);
    expect(result.text).toContain('newInboxes=off');
  });

  it('binds from the layer of any inbox registered before, wherever its directory is', async () => {
    const carol = freshDir();
    const signup = await register({ username: username('c'), credentials_dir: carol });
    expect(signup.isError, signup.text).toBe(false);
    await world.writeInboxPolicy(carol, { newInboxes: 'off' });
    try {
      const result = await register({ username: username('d'), credentials_dir: freshDir() });
      expect(result.isError, result.text).toBe(true);
      expect(result.text).toContain(join(carol, 'policy.json'));
      // A directory that already holds an inbox is no new inbox: registering it again only replays.
      const replay = await register({ username: username('c'), credentials_dir: carol });
      expect(replay.isError, replay.text).toBe(false);
    } finally {
      await rm(join(carol, 'policy.json'), { force: true });
    }
  });
});

describe('no register or login while a wake runs', () => {
  it('refuses a sign-up, a login and a replay while any wake holds its mark, and allows them after', async () => {
    const release = await markInboxWaking(world.userConfigDir, world.address.bob);
    const before = world.sandbox.stats();
    const dir = freshDir();
    try {
      const signup = await register({ username: username('w'), credentials_dir: dir });
      expect(signup.isError, signup.text).toBe(true);
      expect(signup.text).toContain('a wake is running');
      const login = await register({ api_key: await world.bob.revealApiKey(), credentials_dir: freshDir() });
      expect(login.isError, login.text).toBe(true);
      expect(login.text).toContain('a wake is running');
      const replay = await register({ username: world.address.alice.split('@')[0], credentials_dir: world.alice.dir });
      expect(replay.isError, replay.text).toBe(true);
      expect(world.sandbox.stats()).toEqual(before);
    } finally {
      await release();
    }
    const after = await register({ username: username('w'), credentials_dir: dir });
    expect(after.isError, after.text).toBe(false);
  });
});
