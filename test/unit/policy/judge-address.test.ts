import { describe, expect, it } from 'vitest';
import { normaliseAddress } from '../../../src/policy/address-matcher.js';
import { judgeRecipient, judgeSender, restrictsReceiving } from '../../../src/policy/judge-address.js';
import type { LoadedLayer } from '../../../src/policy/policy-layers.js';
import { MailboxError } from '../../../src/errors.js';
import type { PolicyFile, PolicyLayer } from '../../../src/policy/policy-schema.js';

const layer = (name: PolicyLayer, policy: Omit<PolicyFile, 'version'>): LoadedLayer => ({
  layer: name,
  path: `/x/${name}.json`,
  present: true,
  policy: { version: 1, ...policy },
});
const addr = (text: string) => normaliseAddress(text)!;
const unknown = { isKnown: false };

describe('judging a recipient under every layer', () => {
  it('allows anyone under no rules at all', () => {
    expect(judgeRecipient([], addr('a@x.test'), unknown).verdict).toBe('allow');
  });

  it('refuses a blocked address in every mode, naming the layer and the entry', () => {
    for (const mode of ['open', 'known', 'allowlist', 'confirm'] as const) {
      const verdict = judgeRecipient(
        [layer('user', { send: { mode, block: ['evil.test'], allow: ['evil.test'] } })],
        addr('x@mail.evil.test'),
        { isKnown: true },
      );
      expect(verdict).toEqual({ verdict: 'refuse', rule: { layer: 'user', rule: 'send.block', entry: 'evil.test' } });
    }
  });

  it('applies each mode as defined', () => {
    const at = (mode: 'known' | 'allowlist' | 'confirm' | 'off', who: string, isKnown = false) =>
      judgeRecipient([layer('inbox', { send: { mode, allow: ['friends.test'] } })], addr(who), { isKnown }).verdict;
    expect(at('allowlist', 'a@friends.test')).toBe('allow');
    expect(at('allowlist', 'a@other.test', true)).toBe('refuse');
    expect(at('known', 'a@other.test', true)).toBe('allow');
    expect(at('known', 'a@other.test')).toBe('refuse');
    expect(at('confirm', 'a@friends.test')).toBe('allow');
    expect(at('confirm', 'a@other.test', true)).toBe('confirm');
    expect(at('off', 'a@friends.test', true)).toBe('refuse');
  });

  it("never lets one layer's allow-list widen another layer's mode, and the strictest verdict wins", () => {
    const layers = [
      layer('machine', { send: { mode: 'allowlist', allow: ['corp.test'] } }),
      layer('inbox', { send: { mode: 'confirm', allow: ['partner.test'] } }),
    ];
    expect(judgeRecipient(layers, addr('a@partner.test'), unknown)).toEqual({
      verdict: 'refuse',
      rule: { layer: 'machine', rule: 'send.mode=allowlist' },
    });
    expect(judgeRecipient(layers, addr('a@corp.test'), unknown)).toEqual({
      verdict: 'confirm',
      rule: { layer: 'inbox', rule: 'send.mode=confirm' },
    });
  });

  it("fails closed when a layer's file could not be read", () => {
    const broken: LoadedLayer = {
      layer: 'user',
      path: '/x/user.json',
      present: true,
      policy: { version: 1 },
      error: new MailboxError({ code: 'policy_unreadable', message: 'broken', hint: 'ask' }),
    };
    expect(() => judgeRecipient([broken], addr('a@x.test'), unknown)).toThrow(/broken/);
  });
});

describe('judging a sender under the receive rules', () => {
  it('shows an allow-listed sender only when its mail passed sender authentication', () => {
    const layers = [layer('user', { receive: { mode: 'allowlist', allow: ['good.test'] } })];
    expect(judgeSender(layers, addr('news@good.test'), { authenticated: true })).toEqual({ verdict: 'show' });
    expect(judgeSender(layers, addr('news@good.test'), { authenticated: false })).toEqual({
      verdict: 'hold',
      rule: { layer: 'user', rule: 'receive.mode=allowlist' },
    });
    expect(judgeSender(layers, undefined, { authenticated: true }).verdict).toBe('hold');
  });

  it('holds a blocked sender whatever its authentication, in open mode too', () => {
    const layers = [layer('inbox', { receive: { block: ['spam.test'] } })];
    expect(judgeSender(layers, addr('a@spam.test'), { authenticated: true })).toEqual({
      verdict: 'hold',
      rule: { layer: 'inbox', rule: 'receive.block', entry: 'spam.test' },
    });
    expect(judgeSender(layers, addr('a@ok.test'), { authenticated: false })).toEqual({ verdict: 'show' });
  });
});

describe('which layer decides a recipient', () => {
  it('names the layer whose rule allowed the address, and the default when no layer restricts', () => {
    expect(judgeRecipient([layer('user', { send: { mode: 'open' } })], addr('a@x.test'), unknown)).toEqual({
      verdict: 'allow',
      rule: { layer: 'default', rule: 'send.mode=open' },
    });
    expect(
      judgeRecipient([layer('inbox', { send: { mode: 'allowlist', allow: ['x.test'] } })], addr('a@x.test'), unknown),
    ).toEqual({ verdict: 'allow', rule: { layer: 'inbox', rule: 'send.mode=allowlist' } });
    expect(judgeRecipient([layer('inbox', { send: { mode: 'known' } })], addr('a@x.test'), { isKnown: true })).toEqual({
      verdict: 'allow',
      rule: { layer: 'inbox', rule: 'send.mode=known' },
    });
  });

  it('keeps the first of equally strict layers, and lets a later stricter one win over an earlier milder one', () => {
    const both = [layer('machine', { send: { mode: 'allowlist' } }), layer('inbox', { send: { mode: 'off' } })];
    expect(judgeRecipient(both, addr('a@x.test'), unknown)).toEqual({
      verdict: 'refuse',
      rule: { layer: 'machine', rule: 'send.mode=allowlist' },
    });
    const confirmThenAllow = [
      layer('user', { send: { mode: 'confirm' } }),
      layer('inbox', { send: { mode: 'allowlist', allow: ['x.test'] } }),
    ];
    expect(judgeRecipient(confirmThenAllow, addr('a@x.test'), unknown)).toEqual({
      verdict: 'confirm',
      rule: { layer: 'user', rule: 'send.mode=confirm' },
    });
    const allowThenConfirm = [
      layer('user', { send: { mode: 'allowlist', allow: ['x.test'] } }),
      layer('inbox', { send: { mode: 'confirm' } }),
    ];
    expect(judgeRecipient(allowThenConfirm, addr('a@x.test'), unknown)).toEqual({
      verdict: 'confirm',
      rule: { layer: 'inbox', rule: 'send.mode=confirm' },
    });
    const allowThenRefuse = [
      layer('machine', { send: { mode: 'allowlist', allow: ['x.test'] } }),
      layer('user', { send: { mode: 'known' } }),
    ];
    expect(judgeRecipient(allowThenRefuse, addr('a@x.test'), unknown)).toEqual({
      verdict: 'refuse',
      rule: { layer: 'user', rule: 'send.mode=known' },
    });
  });

  it('applies a block entry of any layer, whichever layer sets the mode', () => {
    const layers = [
      layer('machine', { send: { mode: 'allowlist', allow: ['x.test'] } }),
      layer('user', {}),
      layer('inbox', { send: { block: ['bad@x.test'] } }),
    ];
    expect(judgeRecipient(layers, addr('bad@x.test'), { isKnown: true })).toEqual({
      verdict: 'refuse',
      rule: { layer: 'inbox', rule: 'send.block', entry: 'bad@x.test' },
    });
    expect(judgeRecipient(layers, addr('good@x.test'), unknown).verdict).toBe('allow');
  });
});

describe('judging a sender under several layers', () => {
  it('holds mail any allowlist layer does not allow, naming that layer, and fails closed on a broken file', () => {
    const layers = [
      layer('user', { receive: { mode: 'allowlist', allow: ['good.test', 'other.test'] } }),
      layer('inbox', { receive: { mode: 'allowlist', allow: ['good.test'] } }),
    ];
    expect(judgeSender(layers, addr('a@good.test'), { authenticated: true })).toEqual({ verdict: 'show' });
    expect(judgeSender(layers, addr('a@other.test'), { authenticated: true })).toEqual({
      verdict: 'hold',
      rule: { layer: 'inbox', rule: 'receive.mode=allowlist' },
    });
    expect(
      judgeSender([layer('user', { receive: { mode: 'open', allow: ['good.test'] } })], addr('a@else.test'), {
        authenticated: false,
      }),
    ).toEqual({ verdict: 'show' });
    const broken: LoadedLayer = {
      layer: 'inbox',
      path: '/x/inbox.json',
      present: true,
      policy: { version: 1 },
      error: new MailboxError({ code: 'policy_unreadable', message: 'broken inbox file', hint: 'ask' }),
    };
    expect(() => judgeSender([broken], addr('a@good.test'), { authenticated: true })).toThrow('broken inbox file');
    expect(() => restrictsReceiving([broken])).toThrow('broken inbox file');
  });

  it('shows mail without a readable sender under block-lists alone, and holds it under an allow-list', () => {
    expect(
      judgeSender([layer('user', { receive: { block: ['spam.test'] } })], undefined, { authenticated: false }),
    ).toEqual({ verdict: 'show' });
    expect(
      judgeSender(
        [
          layer('user', { receive: { block: ['spam.test'] } }),
          layer('inbox', { receive: { mode: 'allowlist', allow: ['spam.test'] } }),
        ],
        undefined,
        { authenticated: true },
      ),
    ).toEqual({ verdict: 'hold', rule: { layer: 'inbox', rule: 'receive.mode=allowlist' } });
  });

  it('holds a blocked sender from a later layer before any allow-list is asked', () => {
    const layers = [
      layer('user', { receive: { mode: 'allowlist', allow: ['good.test'] } }),
      layer('inbox', { receive: { block: ['boss@good.test'] } }),
    ];
    expect(judgeSender(layers, addr('boss@good.test'), { authenticated: true })).toEqual({
      verdict: 'hold',
      rule: { layer: 'inbox', rule: 'receive.block', entry: 'boss@good.test' },
    });
  });
});

describe('restrictsReceiving', () => {
  it('is true only when some layer has an allow-list mode or a non-empty block-list', () => {
    expect(restrictsReceiving([])).toBe(false);
    expect(
      restrictsReceiving([
        layer('user', { receive: { mode: 'open', allow: ['x.test'], block: [] } }),
        layer('inbox', { send: { mode: 'off', block: ['x.test'] } }),
      ]),
    ).toBe(false);
    expect(restrictsReceiving([layer('user', {}), layer('inbox', { receive: { mode: 'allowlist' } })])).toBe(true);
    expect(restrictsReceiving([layer('user', {}), layer('inbox', { receive: { block: ['spam.test'] } })])).toBe(true);
  });
});
