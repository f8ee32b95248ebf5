import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * What a process leaves in the credentials directory when it exits with a write in flight: a token
 * temp file holds a JWT and must go with the process; a credentials temp file may hold the only
 * copy of a new apiKey and must stay for the next run to recover. The exit hook is captured rather
 * than fired (firing 'exit' would reach the test runner's own hooks), and renames wait on a gate so
 * the hook runs while both writes are between their fsync and their rename.
 */

const gate = vi.hoisted(() => ({ renames: [] as Array<() => void>, held: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    rename: async (from: string, to: string) => {
      if (gate.held) await new Promise<void>((resolve) => gate.renames.push(resolve));
      return real.rename(from, to);
    },
  };
});

const exitHooks: Array<() => void> = [];
const realOnce = process.once.bind(process);
const onceSpy = vi.spyOn(process, 'once').mockImplementation(((event: string, listener: () => void) => {
  if (event === 'exit') {
    exitHooks.push(listener);
    return process;
  }
  return realOnce(event, listener);
}) as typeof process.once);

// A fresh copy of the module: another test file in this worker may have loaded it before the seam existed.
vi.resetModules();
const { writeFileAtomic } = await import('../../../src/credentials/secure-file.js');

// The suite shares worker processes between files: give process.once back.
afterAll(() => onceSpy.mockRestore());

afterEach(() => {
  gate.held = false;
  for (const release of gate.renames.splice(0)) release();
});

async function untilRenames(count: number): Promise<void> {
  while (gate.renames.length < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('a process exiting with writes in flight', () => {
  it('removes the token temp files and keeps the credentials temp file, whose apiKey may exist nowhere else', async () => {
    const dir = await tempCredentialsDir();
    gate.held = true;
    const token = writeFileAtomic(join(dir, 'session.jwt'), 'eyJ.session').catch((error: unknown) => error);
    const credentials = writeFileAtomic(join(dir, 'credentials.json'), '{"apiKey":"new"}');
    await untilRenames(2);
    const before = (await readdir(dir)).sort();
    expect(before).toHaveLength(2);
    expect(before.every((name) => name.endsWith('.tmp'))).toBe(true);

    expect(exitHooks, 'one exit hook, registered once however many writes there are').toHaveLength(1);
    exitHooks[0]!();

    const left = await readdir(dir);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.credentials\.json\.\d+\.[0-9a-f]{12}\.tmp$/);
    gate.held = false;
    for (const release of gate.renames.splice(0)) release();
    await credentials;
    expect(await token, 'the token write whose temp file went away fails instead of claiming success').toMatchObject({
      code: 'credentials_unwritable',
    });
    expect((await readdir(dir)).sort()).toEqual(['credentials.json']);
  });

  it('does not register another exit hook for later writes', async () => {
    const dir = await tempCredentialsDir();
    await writeFileAtomic(join(dir, 'a.json'), 'a');
    await writeFileAtomic(join(dir, 'b.json'), 'b');
    expect(exitHooks).toHaveLength(1);
  });
});
