import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, startJmapTestHost } from '../../helpers/jmap-test-host.js';

// A data directory written before folders, identities and vacation responses existed must open as
// it was, and what the new methods change must survive a restart.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const dan = 'dan@agent-mailbox.test';
const log = (state: number) => ({ state, entries: [] });

function writeOldIndex(dataDir: string): void {
  const dir = join(dataDir, 'inboxes', encodeURIComponent(dan));
  mkdirSync(join(dir, 'messages'), { recursive: true });
  mkdirSync(join(dir, 'blobs'), { recursive: true });
  const index = {
    version: 1,
    address: dan,
    mailboxes: [
      { id: 'm-inbox', name: 'Inbox', role: 'inbox', sortOrder: 1 },
      { id: 'm-sent', name: 'Sent', role: 'sent', sortOrder: 3 },
    ],
    emails: [],
    uploads: [],
    submissions: [],
    changes: { Mailbox: log(2), Email: log(0), Thread: log(0), EmailSubmission: log(0) },
  };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
}

describe('reading an index written before the new methods', () => {
  it('opens with top-level subscribed mailboxes, the one identity and a disabled vacation response', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'index-upgrade-'));
    dirs.push(dataDir);
    writeOldIndex(dataDir);
    const host = await startJmapTestHost({ dataDir });
    try {
      const responses = await host.call('dan', [
        ['Mailbox/get', { accountId: dan, properties: ['parentId', 'isSubscribed'] }, 'm'],
        ['Identity/get', { accountId: dan }, 'i'],
        ['VacationResponse/get', { accountId: dan }, 'v'],
      ]);
      expect(resultOf(responses, 'm')).toMatchObject({
        state: '2',
        list: [
          { id: 'm-inbox', parentId: null, isSubscribed: true },
          { id: 'm-sent', parentId: null, isSubscribed: true },
        ],
      });
      expect(resultOf(responses, 'i')).toMatchObject({ state: '0', list: [{ id: dan, email: dan, mayDelete: false }] });
      expect(resultOf(responses, 'v')['list'][0]).toMatchObject({ isEnabled: false });
    } finally {
      await host.close();
    }
  });

  it('keeps folders, identities and their states across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'index-upgrade-'));
    dirs.push(dataDir);
    writeOldIndex(dataDir);
    const first = await startJmapTestHost({ dataDir });
    await first.call('dan', [
      [
        'Mailbox/set',
        { accountId: dan, create: { f: { name: 'Folder', isSubscribed: true }, c: { name: 'Child', parentId: '#f' } } },
        'm',
      ],
      ['Identity/set', { accountId: dan, create: { i: { email: dan, name: 'Dan the agent' } } }, 'i'],
    ]);
    const read = (host: typeof first) =>
      host.call('dan', [
        ['Mailbox/get', { accountId: dan }, 'm'],
        ['Identity/get', { accountId: dan }, 'i'],
        ['Mailbox/changes', { accountId: dan, sinceState: '2' }, 'c'],
      ]);
    const before = await read(first);
    await first.close();
    const second = await startJmapTestHost({ dataDir });
    try {
      expect(await read(second)).toEqual(before);
      expect(resultOf(before, 'c')['created']).toHaveLength(2);
    } finally {
      await second.close();
    }
  });
});
