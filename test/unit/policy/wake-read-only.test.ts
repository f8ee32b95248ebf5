import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInboxWaking, markInboxWaking } from '../../../src/policy/records/wake-read-only.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wake-mark-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the wake's read-only mark", () => {
  it('holds the inbox (whatever the case of its address) while marked, and each of two overlapping wakes keeps it', async () => {
    expect(await isInboxWaking(dir, 'ana@x.test')).toBe(false);
    const first = await markInboxWaking(dir, 'Ana@X.test');
    const second = await markInboxWaking(dir, 'ana@x.test');
    expect(await isInboxWaking(dir, 'ana@x.test')).toBe(true);
    expect(await isInboxWaking(dir, 'bob@x.test')).toBe(false);
    await first();
    expect(await isInboxWaking(dir, 'ana@x.test')).toBe(true);
    await second();
    expect(await isInboxWaking(dir, 'ana@x.test')).toBe(false);
  });
});
