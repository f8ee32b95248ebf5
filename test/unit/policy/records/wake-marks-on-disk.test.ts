import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInboxWaking, markInboxWaking } from '../../../../src/policy/records/wake-read-only.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';

/**
 * The wake's read-only mark is read by every process of the user, including ones of another
 * version of agent-mailbox (a wake started by a job installed months ago): its name on disk is a
 * contract. `wakes-running/.wake-<first 24 hex digits of sha256(lowercased address)>-<anything>.lock`,
 * a directory lock with owner.json.
 */

const prefix = (address: string): string =>
  `wake-${createHash('sha256').update(address.trim().toLowerCase()).digest('hex').slice(0, 24)}-`;

async function plantMark(configDir: string, name: string, pid = process.pid): Promise<void> {
  const lock = join(configDir, 'wakes-running', `.${name}.lock`);
  await mkdir(lock, { recursive: true });
  await writeFile(
    join(lock, 'owner.json'),
    JSON.stringify({ pid, host: hostname(), token: 'other-version', createdAt: new Date().toISOString() }),
  );
}

describe('a wake mark on disk', () => {
  it("is made under the contract name, and another process's mark under that name holds the inbox", async () => {
    const configDir = await tempCredentialsDir();
    const release = await markInboxWaking(configDir, 'Ana@X.test');
    const names = await readdir(join(configDir, 'wakes-running'));
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(new RegExp(`^\\.${prefix('ana@x.test')}[0-9a-f]{12}\\.lock$`));
    await release();

    await plantMark(configDir, `${prefix('ana@x.test')}from-another-version`);
    expect(await isInboxWaking(configDir, 'ana@x.test')).toBe(true);
    expect(await isInboxWaking(configDir, 'bob@x.test')).toBe(false);
  });

  it('counts only under that name: a mark of another inbox, or a file that is not a mark, holds nothing', async () => {
    const configDir = await tempCredentialsDir();
    await plantMark(configDir, `${prefix('bob@x.test')}1`);
    await plantMark(configDir, `x${prefix('ana@x.test')}1`);
    await mkdir(join(configDir, 'wakes-running', `${prefix('ana@x.test')}no-dot.lock`), { recursive: true });
    expect(await isInboxWaking(configDir, 'ana@x.test')).toBe(false);
  });
});
