import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { effectivePolicy } from '../../../src/policy/effective-policy.js';
import { applyPolicyChange, canonicalEntries, wideningChanges } from '../../../src/policy/policy-change.js';
import { loadPolicyLayers, policyPaths } from '../../../src/policy/policy-layers.js';
import { updatePolicyLayer } from '../../../src/policy/policy-store.js';
import type { PolicyFile } from '../../../src/policy/policy-schema.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-mailbox-policy-'));
  dirs.push(dir);
  return dir;
}
const base: PolicyFile = { version: 1 };

describe('policy files', () => {
  it('reads the three layers and takes the lowest cap, the stricter switch and every list, naming where each comes from', async () => {
    const root = await tempDir();
    const paths = policyPaths({
      userConfigDir: join(root, 'config'),
      inboxDir: join(root, 'inbox'),
      machinePath: join(root, 'etc', 'policy.json'),
    });
    await mkdir(join(root, 'etc'));
    await writeFile(paths.machine, JSON.stringify({ version: 1, send: { maxSendsPerDay: 50, block: ['evil.test'] } }));
    await updatePolicyLayer(
      paths.user,
      { kind: 'set', settings: { maxSendsPerDay: 10, secretScan: 'off' } },
      async () => true,
    );
    await updatePolicyLayer(
      join(paths.inboxDir!, 'policy.json'),
      { kind: 'set', settings: { sendMode: 'confirm', newInboxes: 'off' } },
      undefined,
    );
    const effective = effectivePolicy(await loadPolicyLayers(paths));
    expect(effective.send.maxSendsPerDay).toEqual({ value: 10, from: 'user' });
    expect(effective.send.secretScan).toEqual({ value: 'off', from: 'user' });
    expect(effective.send.modes).toEqual([{ value: 'confirm', from: 'inbox' }]);
    expect(effective.send.block).toEqual([{ entry: 'evil.test', from: 'machine' }]);
    expect(effective.newInboxes).toEqual({ value: 'off', from: 'inbox' });
    expect(effective.layers.map((l) => [l.layer, l.present])).toEqual([
      ['machine', true],
      ['user', true],
      ['inbox', true],
    ]);
    expect((await stat(paths.user)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, 'config'))).mode & 0o777).toBe(0o700);
  });

  it('keeps a broken layer for show but refuses to judge under it', async () => {
    const root = await tempDir();
    const paths = policyPaths({ userConfigDir: root, machinePath: join(root, 'none.json') });
    await writeFile(paths.user, JSON.stringify({ version: 1, send: { mode: 'allowlsit' } }), { mode: 0o600 });
    const layers = await loadPolicyLayers(paths);
    expect(layers.find((l) => l.layer === 'user')?.error?.message).toMatch(/send\.mode/);
    expect(() => effectivePolicy(layers)).toThrow(/cannot be used/);
  });

  it('writes nothing when a widening change is not approved, and writes a narrowing one without asking', async () => {
    const root = await tempDir();
    const path = join(root, 'policy.json');
    await updatePolicyLayer(path, { kind: 'set', settings: { sendMode: 'allowlist' } }, undefined);
    const refused = await updatePolicyLayer(
      path,
      { kind: 'list', direction: 'send', list: 'allow', entries: ['a@x.test'] },
      async () => false,
    );
    expect(refused).toMatchObject({ changed: false, widens: ['send allow + a@x.test'] });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ version: 1, send: { mode: 'allowlist' } });
    const asked: string[][] = [];
    const narrowed = await updatePolicyLayer(
      path,
      { kind: 'list', direction: 'send', list: 'block', entries: ['evil.test'] },
      async (widens) => (asked.push(widens), false),
    );
    expect(narrowed.changed).toBe(true);
    expect(asked).toEqual([]);
  });

  it('serialises concurrent writers so no change is lost', async () => {
    const root = await tempDir();
    const path = join(root, 'policy.json');
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        updatePolicyLayer(path, { kind: 'list', direction: 'send', list: 'block', entries: [`d${i}.test`] }, undefined),
      ),
    );
    const stored = JSON.parse(await readFile(path, 'utf8')) as PolicyFile;
    expect(stored.send?.block?.length).toBe(12);
  });
});

describe('which changes widen', () => {
  const widens = (before: PolicyFile, change: Parameters<typeof applyPolicyChange>[1]) =>
    wideningChanges(before, applyPolicyChange(before, change));

  it('counts loosening the mode, raising or removing a cap, scan off, new inboxes on, allow entries and lifted blocks', () => {
    const strict: PolicyFile = {
      version: 1,
      send: { mode: 'allowlist', maxSendsPerHour: 5, block: ['evil.test'], attachFrom: '/srv/out' },
      receive: { mode: 'allowlist', block: ['spam.test'] },
      newInboxes: 'off',
    };
    expect(widens(strict, { kind: 'set', settings: { sendMode: 'open' } })).toEqual(['send mode allowlist → open']);
    expect(widens(strict, { kind: 'set', settings: { maxSendsPerHour: 6 } })).toEqual(['maxSendsPerHour 5 → 6']);
    expect(widens(strict, { kind: 'set', settings: { maxSendsPerHour: null } })).toEqual(['maxSendsPerHour 5 → none']);
    expect(widens(strict, { kind: 'set', settings: { secretScan: 'off' } })).toEqual(['secret scan on → off']);
    expect(widens(strict, { kind: 'set', settings: { newInboxes: 'on' } })).toEqual(['new inboxes off → on']);
    expect(widens(strict, { kind: 'set', settings: { attachFrom: '/' } })).toEqual(['attachments from /srv/out → /']);
    expect(widens(strict, { kind: 'set', settings: { receiveMode: 'open' } })).toEqual([
      'receive mode allowlist → open',
    ]);
    expect(widens(strict, { kind: 'unlist', entries: ['evil.test', 'spam.test'] })).toEqual([
      'send block − evil.test',
      'receive block − spam.test',
    ]);
    expect(widens(strict, { kind: 'list', direction: 'receive', list: 'allow', entries: ['good.test'] })).toEqual([
      'receive allow + good.test',
    ]);
  });

  it('counts a move between known and confirm as widening either way, and tightening as nothing', () => {
    expect(
      widens({ ...base, send: { mode: 'known' } }, { kind: 'set', settings: { sendMode: 'confirm' } }),
    ).toHaveLength(1);
    expect(
      widens({ ...base, send: { mode: 'confirm' } }, { kind: 'set', settings: { sendMode: 'known' } }),
    ).toHaveLength(1);
    expect(
      widens(base, {
        kind: 'set',
        settings: { sendMode: 'off', maxSendsPerDay: 3, secretScan: 'on', newInboxes: 'off', attachFrom: '/srv' },
      }),
    ).toEqual([]);
    expect(widens(base, { kind: 'list', direction: 'send', list: 'block', entries: ['x.test'] })).toEqual([]);
  });

  it('stores entries in one canonical spelling and names the ones that are no address or domain', () => {
    expect(canonicalEntries(['Ana@Example.ORG', 'example.org.', 'ana@example.org', 'nonsense'])).toEqual({
      entries: ['ana@example.org', 'example.org'],
      invalid: ['nonsense'],
    });
  });
});
