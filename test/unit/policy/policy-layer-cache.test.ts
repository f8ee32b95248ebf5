import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyLayers, policyPaths } from '../../../src/policy/policy-layers.js';

// A long-lived server reads the layers on every call and keeps what it read while the file is the
// same: every change the operator makes must still be seen by the very next call.

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'policy-cache-'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

const modeOf = async (inboxDir: string): Promise<string | undefined> => {
  const layers = await loadPolicyLayers(
    policyPaths({ userConfigDir: join(base, 'config'), inboxDir, machinePath: join(base, 'no-machine.json') }),
  );
  const inbox = layers.find((l) => l.layer === 'inbox');
  return inbox?.error ? `error: ${inbox.error.code}` : inbox?.policy.send?.mode;
};

describe('the policy layers a long-lived process reads again', () => {
  it('sees a new file, a rewrite in place of the same size, a broken file and a removed one', async () => {
    const dir = join(base, 'inbox');
    const path = join(dir, 'policy.json');
    await mkdir(dir, { mode: 0o700 });
    expect(await modeOf(dir)).toBeUndefined();
    await writeFile(path, JSON.stringify({ version: 1, send: { mode: 'open' } }), { mode: 0o600 });
    expect(await modeOf(dir)).toBe('open');
    expect(await modeOf(dir)).toBe('open');
    // Rewritten in place (same inode), then back to the first text padded to the same length.
    await writeFile(path, JSON.stringify({ version: 1, send: { mode: 'known' } }), { mode: 0o600 });
    expect(await modeOf(dir)).toBe('known');
    await writeFile(
      path,
      JSON.stringify({ version: 1, send: { mode: 'open' } }).padEnd(
        JSON.stringify({ version: 1, send: { mode: 'known' } }).length,
      ),
      { mode: 0o600 },
    );
    expect(await modeOf(dir)).toBe('open');
    await writeFile(path, '{"version": 1, "send": {"mode": "allowlsit"}}', { mode: 0o600 });
    expect(await modeOf(dir)).toBe('error: policy_unreadable');
    await rm(path);
    expect(await modeOf(dir)).toBeUndefined();
  });

  it('follows a symlinked layer to whatever it points at now', async () => {
    const dir = join(base, 'linked');
    await mkdir(dir, { mode: 0o700 });
    const target = join(base, 'target.json');
    await writeFile(target, JSON.stringify({ version: 1, send: { mode: 'open' } }), { mode: 0o600 });
    await symlink(target, join(dir, 'policy.json'));
    const first = await modeOf(dir);
    await writeFile(target, JSON.stringify({ version: 1, send: { mode: 'known' } }), { mode: 0o600 });
    const second = await modeOf(dir);
    // Whatever the reader makes of a symlink (followed, or refused as a private file), the second read reflects the change.
    if (first === 'open') expect(second).toBe('known');
    else expect(second).toBe(first);
  });
});
