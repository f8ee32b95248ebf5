import { describe, expect, it } from 'vitest';
import { effectivePolicy } from '../../../src/policy/effective-policy.js';
import type { LoadedLayer } from '../../../src/policy/policy-layers.js';
import type { PolicyFile } from '../../../src/policy/policy-schema.js';

/** How the layers combine: the lowest cap and where it comes from, the stricter side of a switch, a switch set only to its lenient side. */

const layer = (name: LoadedLayer['layer'], policy: Omit<PolicyFile, 'version'>): LoadedLayer => ({ layer: name, path: `/${name}.json`, present: true, policy: { version: 1, ...policy } as PolicyFile });

describe('effectivePolicy', () => {
  it('takes the lowest cap from the layer that sets it, the first of equal ones', () => {
    const policy = effectivePolicy([layer('machine', { send: { maxSendsPerHour: 5, maxRecipients: 3 } }), layer('user', { send: { maxSendsPerHour: 3, maxRecipients: 3 } }), layer('inbox', { send: { maxSendsPerHour: 7 } })]);
    expect(policy.send.maxSendsPerHour).toEqual({ value: 3, from: 'user' });
    expect(policy.send.maxRecipients).toEqual({ value: 3, from: 'machine' });
    expect(policy.send.maxSendsPerDay).toBeNull();
  });

  it('names the layer that turns a switch to its lenient side when no layer turns it to the strict one', () => {
    expect(effectivePolicy([layer('user', { send: { secretScan: 'off' } })]).send.secretScan).toEqual({ value: 'off', from: 'user' });
    expect(effectivePolicy([layer('user', { send: { secretScan: 'off' } }), layer('inbox', { send: { secretScan: 'on' } })]).send.secretScan).toEqual({ value: 'on', from: 'inbox' });
    expect(effectivePolicy([layer('user', {})]).send.secretScan).toEqual({ value: 'on', from: 'default' });
    expect(effectivePolicy([layer('inbox', { newInboxes: 'on' })]).newInboxes).toEqual({ value: 'on', from: 'inbox' });
  });

  it('lists receive modes other than open with their layer', () => {
    expect(effectivePolicy([layer('user', { receive: { mode: 'open' } }), layer('inbox', { receive: { mode: 'allowlist', allow: ['a@b.test'] } })]).receive).toEqual({
      modes: [{ value: 'allowlist', from: 'inbox' }],
      allow: [{ entry: 'a@b.test', from: 'inbox' }],
      block: [],
    });
  });
});
