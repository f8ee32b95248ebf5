import { describe, expect, it } from 'vitest';
import { resolveInboxAddress } from '../../../src/jmap/resolve-inbox-address.js';

// Spec §1.4 fact 4, clause by clause.
describe('resolveInboxAddress', () => {
  it('(a) uses a stored inbox id that already contains @ as it is', () => {
    expect(
      resolveInboxAddress({
        storedInboxId: 'bot@custom.example',
        sessionAccountId: 'other@x.y',
        configuredDomain: 'c.test',
      }),
    ).toEqual({
      address: 'bot@custom.example',
      rule: 'stored-address',
    });
  });

  it('(b) uses the session account id when its local part equals the stored inbox id', () => {
    expect(
      resolveInboxAddress({
        storedInboxId: 'alice',
        sessionAccountId: 'alice@custom.example',
        configuredDomain: 'c.test',
      }),
    ).toEqual({
      address: 'alice@custom.example',
      rule: 'session-account',
    });
  });

  it('(b) is skipped when the session account id belongs to another local part', () => {
    expect(resolveInboxAddress({ storedInboxId: 'alice', sessionAccountId: 'bob@custom.example' }).rule).toBe(
      'service-domain',
    );
  });

  it('(b) is skipped when the session account id is not an address (e.g. a UUID)', () => {
    expect(
      resolveInboxAddress({
        storedInboxId: 'alice',
        sessionAccountId: '6f1c2a9e-0000-4000-8000-000000000000',
        configuredDomain: 'c.test',
      }),
    ).toEqual({
      address: 'alice@c.test',
      rule: 'configured-domain',
    });
  });

  it('(c) appends the configured default domain when the session does not tell', () => {
    expect(resolveInboxAddress({ storedInboxId: 'alice', configuredDomain: 'agent-mailbox.test' })).toEqual({
      address: 'alice@agent-mailbox.test',
      rule: 'configured-domain',
    });
  });

  it("(d) falls back to the service's default domain", () => {
    expect(resolveInboxAddress({ storedInboxId: 'alice' })).toEqual({
      address: 'alice@atomicmail.ai',
      rule: 'service-domain',
    });
    expect(resolveInboxAddress({ storedInboxId: 'alice', serviceDomain: 's.test' }).address).toBe('alice@s.test');
  });

  it('(b) is skipped when the session account id with the same local part is no address: no domain, spaces', () => {
    for (const sessionAccountId of ['alice@', 'alice@custom example', 'alice@custom\texample']) {
      expect(
        resolveInboxAddress({ storedInboxId: 'alice', sessionAccountId, configuredDomain: 'c.test' }),
        sessionAccountId,
      ).toEqual({ address: 'alice@c.test', rule: 'configured-domain' });
    }
    // An empty local part is no address either, even for an empty stored id.
    expect(
      resolveInboxAddress({ storedInboxId: '', sessionAccountId: '@custom.example', configuredDomain: 'c.test' }).rule,
    ).toBe('configured-domain');
  });

  it('(b) accepts the shortest address, one character on each side of the @', () => {
    expect(resolveInboxAddress({ storedInboxId: 'a', sessionAccountId: 'a@b' })).toEqual({
      address: 'a@b',
      rule: 'session-account',
    });
  });

  it('ignores spaces around the stored id, the session account id and the configured domain', () => {
    expect(resolveInboxAddress({ storedInboxId: ' alice ', sessionAccountId: ' alice@custom.example ' })).toEqual({
      address: 'alice@custom.example',
      rule: 'session-account',
    });
    expect(resolveInboxAddress({ storedInboxId: ' alice ', configuredDomain: ' c.test ' })).toEqual({
      address: 'alice@c.test',
      rule: 'configured-domain',
    });
    expect(resolveInboxAddress({ storedInboxId: 'alice', configuredDomain: '   ' }).rule).toBe('service-domain');
  });
});
