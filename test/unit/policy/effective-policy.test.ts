import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { describeLayers, effectivePolicy } from '../../../src/policy/effective-policy.js';
import type { LoadedLayer } from '../../../src/policy/policy-layers.js';
import type { PolicyFile } from '../../../src/policy/policy-schema.js';

/** How the layers combine: the lowest cap and where it comes from, the stricter side of a switch, a switch set only to its lenient side. */

const layer = (name: LoadedLayer['layer'], policy: Omit<PolicyFile, 'version'>): LoadedLayer => ({
  layer: name,
  path: `/${name}.json`,
  present: true,
  policy: { version: 1, ...policy } as PolicyFile,
});

describe('effectivePolicy', () => {
  it('takes the lowest cap from the layer that sets it, the first of equal ones', () => {
    const policy = effectivePolicy([
      layer('machine', { send: { maxSendsPerHour: 5, maxRecipients: 3 } }),
      layer('user', { send: { maxSendsPerHour: 3, maxRecipients: 3 } }),
      layer('inbox', { send: { maxSendsPerHour: 7 } }),
    ]);
    expect(policy.send.maxSendsPerHour).toEqual({ value: 3, from: 'user' });
    expect(policy.send.maxRecipients).toEqual({ value: 3, from: 'machine' });
    expect(policy.send.maxSendsPerDay).toBeNull();
  });

  it('names the layer that turns a switch to its lenient side when no layer turns it to the strict one', () => {
    expect(effectivePolicy([layer('user', { send: { secretScan: 'off' } })]).send.secretScan).toEqual({
      value: 'off',
      from: 'user',
    });
    expect(
      effectivePolicy([layer('user', { send: { secretScan: 'off' } }), layer('inbox', { send: { secretScan: 'on' } })])
        .send.secretScan,
    ).toEqual({ value: 'on', from: 'inbox' });
    expect(effectivePolicy([layer('user', {})]).send.secretScan).toEqual({ value: 'on', from: 'default' });
    expect(effectivePolicy([layer('inbox', { newInboxes: 'on' })]).newInboxes).toEqual({ value: 'on', from: 'inbox' });
  });

  it('lists receive modes other than open with their layer', () => {
    expect(
      effectivePolicy([
        layer('user', { receive: { mode: 'open' } }),
        layer('inbox', { receive: { mode: 'allowlist', allow: ['a@b.test'] } }),
      ]).receive,
    ).toEqual({
      modes: [{ value: 'allowlist', from: 'inbox' }],
      allow: [{ entry: 'a@b.test', from: 'inbox' }],
      block: [],
    });
  });
});

describe('effectivePolicy of every rule', () => {
  it('states every rule with its layer, lists in layer order, and no rule where no layer sets one', () => {
    const policy = effectivePolicy([
      layer('machine', {
        send: { mode: 'allowlist', allow: ['corp.test'], block: ['evil.test'], attachFrom: '/srv/out' },
      }),
      layer('user', {
        send: { mode: 'open', allow: ['partner.test'], maxSendsPerDay: 0 },
        receive: { block: ['spam.test'] },
      }),
      layer('inbox', {
        send: { mode: 'confirm', block: ['x@corp.test'], attachFrom: '/srv/out/ada', maxRecipients: 4 },
        receive: { mode: 'allowlist', allow: ['corp.test'] },
        newInboxes: 'off',
      }),
    ]);
    expect(policy).toEqual({
      version: 1,
      layers: [
        { layer: 'machine', path: '/machine.json', present: true },
        { layer: 'user', path: '/user.json', present: true },
        { layer: 'inbox', path: '/inbox.json', present: true },
      ],
      send: {
        modes: [
          { value: 'allowlist', from: 'machine' },
          { value: 'confirm', from: 'inbox' },
        ],
        allow: [
          { entry: 'corp.test', from: 'machine' },
          { entry: 'partner.test', from: 'user' },
        ],
        block: [
          { entry: 'evil.test', from: 'machine' },
          { entry: 'x@corp.test', from: 'inbox' },
        ],
        maxSendsPerHour: null,
        maxSendsPerDay: { value: 0, from: 'user' },
        maxRecipients: { value: 4, from: 'inbox' },
        secretScan: { value: 'on', from: 'default' },
        attachFrom: [
          { value: '/srv/out', from: 'machine' },
          { value: '/srv/out/ada', from: 'inbox' },
        ],
      },
      receive: {
        modes: [{ value: 'allowlist', from: 'inbox' }],
        allow: [{ entry: 'corp.test', from: 'inbox' }],
        block: [{ entry: 'spam.test', from: 'user' }],
      },
      newInboxes: { value: 'off', from: 'inbox' },
    });
    expect(effectivePolicy([]).send).toMatchObject({
      modes: [],
      allow: [],
      block: [],
      maxSendsPerHour: null,
      maxRecipients: null,
      attachFrom: [],
    });
    expect(effectivePolicy([]).newInboxes).toEqual({ value: 'on', from: 'default' });
  });

  it('lets a cap of 0 (no sends at all) win over any other', () => {
    expect(
      effectivePolicy([
        layer('machine', { send: { maxSendsPerHour: 0 } }),
        layer('user', { send: { maxSendsPerHour: 5 } }),
      ]).send.maxSendsPerHour,
    ).toEqual({ value: 0, from: 'machine' });
    expect(
      effectivePolicy([
        layer('machine', { send: { maxSendsPerHour: 5 } }),
        layer('user', { send: { maxSendsPerHour: 0 } }),
      ]).send.maxSendsPerHour,
    ).toEqual({ value: 0, from: 'user' });
  });

  it('turns new inboxes off when any layer does, on only where a layer says so and none says off', () => {
    expect(
      effectivePolicy([layer('user', { newInboxes: 'on' }), layer('inbox', { newInboxes: 'off' })]).newInboxes,
    ).toEqual({ value: 'off', from: 'inbox' });
    expect(
      effectivePolicy([layer('machine', { newInboxes: 'off' }), layer('user', { newInboxes: 'on' })]).newInboxes,
    ).toEqual({ value: 'off', from: 'machine' });
    expect(effectivePolicy([layer('machine', {}), layer('user', { newInboxes: 'on' })]).newInboxes).toEqual({
      value: 'on',
      from: 'user',
    });
  });

  it("names a broken layer's error in describeLayers and refuses to combine it", () => {
    const broken: LoadedLayer = {
      ...layer('user', {}),
      present: true,
      error: new MailboxError({ code: 'policy_unreadable', message: 'user file broken', hint: 'h' }),
    };
    const absent: LoadedLayer = { ...layer('inbox', {}), present: false };
    expect(describeLayers([broken, absent])).toEqual([
      { layer: 'user', path: '/user.json', present: true, error: 'user file broken' },
      { layer: 'inbox', path: '/inbox.json', present: false },
    ]);
    expect(() => effectivePolicy([absent, broken])).toThrow('user file broken');
  });
});
