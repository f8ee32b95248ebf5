import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertUsable, loadPolicyLayers, policyPaths } from '../../../src/policy/policy-layers.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * A layer whose folder is not there, or is a file, has no rules (it is absent), whichever layer it
 * is; that is not the same as a layer that is there and cannot be read, which stops every send.
 */

describe('a policy layer whose folder is a file', () => {
  it('is absent for the user and the inbox layers as for the machine layer, and the layers stay usable', async () => {
    const base = await tempCredentialsDir();
    await mkdir(base, { recursive: true });
    for (const name of ['config', 'inbox', 'etc']) await writeFile(join(base, name), 'a file, not a folder');
    const layers = await loadPolicyLayers(
      policyPaths({
        userConfigDir: join(base, 'config'),
        inboxDir: join(base, 'inbox'),
        machinePath: join(base, 'etc', 'policy.json'),
      }),
    );
    expect(layers.map((l) => [l.layer, l.present, l.error])).toEqual([
      ['machine', false, undefined],
      ['user', false, undefined],
      ['inbox', false, undefined],
    ]);
    expect(() => assertUsable(layers)).not.toThrow();
  });

  it('keeps the inbox layer its own path when the inbox folder is given, and has none without it', async () => {
    const paths = policyPaths({ userConfigDir: '/u', inboxDir: '/i', machinePath: '/m' });
    expect(paths).toEqual({ machine: '/m', user: '/u/user-policy.json', inboxDir: '/i' });
    expect(policyPaths({ userConfigDir: '/u', machinePath: '/m' })).not.toHaveProperty('inboxDir');
  });
});
