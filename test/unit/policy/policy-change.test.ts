import { describe, expect, it } from 'vitest';
import { applyPolicyChange, wideningChanges } from '../../../src/policy/policy-change.js';
import type { PolicyFile } from '../../../src/policy/policy-schema.js';

/** A layer's file after each kind of change the operator makes, and which changes count as widening (they need the operator at a terminal). */

const base: PolicyFile = { version: 1 };

describe('applyPolicyChange', () => {
  it('sets every setting, removes a cap or the attachment directory given as null, and leaves what the change does not name', () => {
    const before: PolicyFile = {
      version: 1,
      send: {
        mode: 'allowlist',
        maxSendsPerHour: 5,
        maxSendsPerDay: 50,
        maxRecipients: 3,
        attachFrom: '/srv/out',
        allow: ['x.test'],
      },
    };
    expect(
      applyPolicyChange(before, {
        kind: 'set',
        settings: {
          maxSendsPerHour: null,
          maxRecipients: 0,
          attachFrom: null,
          secretScan: 'off',
          newInboxes: 'off',
          receiveMode: 'allowlist',
        },
      }),
    ).toEqual({
      version: 1,
      send: { mode: 'allowlist', maxSendsPerDay: 50, maxRecipients: 0, secretScan: 'off', allow: ['x.test'] },
      receive: { mode: 'allowlist' },
      newInboxes: 'off',
    });
    expect(
      applyPolicyChange(before, {
        kind: 'set',
        settings: { sendMode: 'off', maxSendsPerDay: null, attachFrom: '/srv/other' },
      }).send,
    ).toEqual({ mode: 'off', maxSendsPerHour: 5, maxRecipients: 3, attachFrom: '/srv/other', allow: ['x.test'] });
    expect(before.send?.maxSendsPerHour).toBe(5);
  });

  it("moves an entry between the allow- and block-list of one direction, never the other direction's", () => {
    const before: PolicyFile = { version: 1, send: { allow: ['a.test', 'b.test'] }, receive: { allow: ['a.test'] } };
    const after = applyPolicyChange(before, {
      kind: 'list',
      direction: 'send',
      list: 'block',
      entries: ['a.test', 'c.test'],
    });
    expect(after).toEqual({
      version: 1,
      send: { allow: ['b.test'], block: ['a.test', 'c.test'] },
      receive: { allow: ['a.test'] },
    });
    expect(
      applyPolicyChange(after, { kind: 'list', direction: 'send', list: 'block', entries: ['c.test'] }).send?.block,
    ).toEqual(['a.test', 'c.test']);
    expect(
      applyPolicyChange(after, { kind: 'list', direction: 'receive', list: 'block', entries: ['a.test'] }).receive,
    ).toEqual({ block: ['a.test'] });
  });

  it('takes an entry off every list, and drops lists and sections left empty', () => {
    const before: PolicyFile = {
      version: 1,
      send: { allow: ['a.test'], block: ['b.test', 'c.test'] },
      receive: { block: ['a.test'] },
    };
    expect(applyPolicyChange(before, { kind: 'unlist', entries: ['a.test', 'b.test'] })).toEqual({
      version: 1,
      send: { block: ['c.test'] },
    });
    expect(applyPolicyChange(before, { kind: 'unlist', entries: ['a.test', 'b.test', 'c.test'] })).toEqual({
      version: 1,
    });
  });
});

describe('wideningChanges', () => {
  const widens = (before: PolicyFile, after: PolicyFile) => wideningChanges(before, after);

  it('counts a mode moved to a milder one, and no move to a stricter one', () => {
    expect(widens({ ...base, send: { mode: 'off' } }, { ...base, send: { mode: 'allowlist' } })).toEqual([
      'send mode off → allowlist',
    ]);
    expect(widens({ ...base, send: { mode: 'allowlist' } }, { ...base, send: { mode: 'confirm' } })).toEqual([
      'send mode allowlist → confirm',
    ]);
    expect(widens({ ...base, send: { mode: 'confirm' } }, base)).toEqual(['send mode confirm → open']);
    expect(widens(base, { ...base, send: { mode: 'confirm' } })).toEqual([]);
    expect(widens({ ...base, send: { mode: 'known' } }, { ...base, send: { mode: 'allowlist' } })).toEqual([]);
    expect(widens({ ...base, send: { mode: 'known' } }, { ...base, send: { mode: 'known' } })).toEqual([]);
  });

  it('counts a cap raised or removed, and no cap lowered or newly set', () => {
    expect(widens({ ...base, send: { maxRecipients: 3 } }, { ...base, send: { maxRecipients: 3 } })).toEqual([]);
    expect(widens({ ...base, send: { maxRecipients: 3 } }, { ...base, send: { maxRecipients: 2 } })).toEqual([]);
    expect(widens(base, { ...base, send: { maxSendsPerDay: 100 } })).toEqual([]);
    expect(widens({ ...base, send: { maxSendsPerDay: 0 } }, { ...base, send: { maxSendsPerDay: 1 } })).toEqual([
      'maxSendsPerDay 0 → 1',
    ]);
    expect(widens({ ...base, send: { maxRecipients: 3 } }, base)).toEqual(['maxRecipients 3 → none']);
  });

  it('counts the attachment directory changed or removed, the scan turned off, new inboxes turned on and receiving opened', () => {
    expect(widens({ ...base, send: { attachFrom: '/srv/out' } }, base)).toEqual([
      'attachments from /srv/out → anywhere',
    ]);
    expect(widens(base, { ...base, send: { attachFrom: '/srv/out' } })).toEqual([]);
    expect(widens({ ...base, send: { secretScan: 'off' } }, base)).toEqual([]);
    expect(widens(base, { ...base, send: { secretScan: 'off' } })).toEqual(['secret scan on → off']);
    expect(widens({ ...base, newInboxes: 'off' }, base)).toEqual(['new inboxes off → on']);
    expect(widens(base, { ...base, newInboxes: 'off' })).toEqual([]);
    expect(widens({ ...base, receive: { mode: 'allowlist' } }, base)).toEqual(['receive mode allowlist → open']);
    expect(widens(base, { ...base, receive: { mode: 'allowlist' } })).toEqual([]);
  });

  it('counts each allow entry added and each block entry lifted, in either direction', () => {
    const before: PolicyFile = {
      ...base,
      send: { allow: ['a.test'], block: ['b.test'] },
      receive: { allow: ['c.test'], block: ['d.test'] },
    };
    const after: PolicyFile = {
      ...base,
      send: { allow: ['a.test', 'e.test'] },
      receive: { allow: ['f.test'], block: ['d.test', 'g.test'] },
    };
    expect(widens(before, after)).toEqual(['send allow + e.test', 'send block − b.test', 'receive allow + f.test']);
  });
});
