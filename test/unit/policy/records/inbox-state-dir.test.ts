import { describe, expect, it } from 'vitest';
import { guardedInbox, inboxKey } from '../../../../src/policy/records/inbox-state-dir.js';

/** Which inbox the operator's per-inbox rules and records belong to: one name per inbox, whatever the spelling. */

describe('guardedInbox', () => {
  it('names the inbox by its address when known, else by its JMAP account, else by its id, with its own state folder', () => {
    expect(
      guardedInbox({ inboxId: 'i-1', address: 'ada@agent-mailbox.test', jmapAccountId: 'acc-1', stateDir: '/s/ada' }),
    ).toEqual({ inbox: 'ada@agent-mailbox.test', stateDir: '/s/ada' });
    expect(guardedInbox({ inboxId: 'i-1', jmapAccountId: 'acc-1', stateDir: '/s/acc' })).toEqual({
      inbox: 'acc-1',
      stateDir: '/s/acc',
    });
    expect(guardedInbox({ inboxId: 'i-1', stateDir: '/s/i' })).toEqual({ inbox: 'i-1', stateDir: '/s/i' });
  });
});

describe('inboxKey', () => {
  it('counts one inbox once however its address is spelt', () => {
    expect(inboxKey('  Ada@Agent-Mailbox.TEST ')).toBe('ada@agent-mailbox.test');
    expect(inboxKey('ada@agent-mailbox.test')).toBe(inboxKey('ADA@agent-mailbox.test'));
  });
});
