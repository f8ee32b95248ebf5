import { beforeEach, describe, expect, it } from 'vitest';
import { effectivePolicy } from '../../../../src/policy/effective-policy.js';
import { normaliseAddress, type NormalisedAddress } from '../../../../src/policy/address-matcher.js';
import type { LoadedLayer } from '../../../../src/policy/policy-layers.js';
import type { PolicyFile, PolicyLayer } from '../../../../src/policy/policy-schema.js';
import { forgetAllSecrets } from '../../../../src/redact.js';
import { judgeSend, type SendUnderJudgement, type Verdict } from '../../../../src/request/guard/send-judgement.js';

/**
 * One send under the operator's rules: recipients under every layer, answers to anyone, the
 * recipients cap, the secret scan, what an operator's approval lifts (the mode) and what it does
 * not (block-lists, the scan), and when the `known` lookup is made at all.
 */

const layer = (name: PolicyLayer, policy: Omit<PolicyFile, 'version'>): LoadedLayer => ({
  layer: name,
  path: `/x/${name}.json`,
  present: true,
  policy: { version: 1, ...policy },
});
const addr = (text: string): NormalisedAddress => normaliseAddress(text)!;

function send(extra: Partial<SendUnderJudgement> = {}): SendUnderJudgement {
  return {
    label: 'the mail "Figures"',
    kind: 'mail',
    recipients: [addr('bob@example.test')],
    unreadable: [],
    scanParts: [{ where: 'the body', text: 'Hello.' }],
    slots: 1,
    ...extra,
  };
}

async function judge(
  layers: LoadedLayer[],
  under: SendUnderJudgement,
  options: { known?: string[]; approved?: boolean; lookups?: string[] } = {},
): Promise<Verdict> {
  return judgeSend(under, {
    layers,
    policy: effectivePolicy(layers),
    ...(options.approved ? { approved: true } : {}),
    isKnown: async (address) => {
      options.lookups?.push(address.address);
      return (options.known ?? []).includes(address.address);
    },
  });
}

const refusal = (verdict: Verdict) => {
  if (verdict.kind !== 'refuse') throw new Error(`expected a refusal, got ${verdict.kind}`);
  return verdict;
};

describe('judgeSend', () => {
  // Files share a worker: a secret another file's run remembered must not join this file's findings.
  beforeEach(() => forgetAllSecrets());

  it('allows under no rules, naming the open default', async () => {
    expect(await judge([], send())).toEqual({ kind: 'allow', rule: 'default: send.mode=open' });
  });

  it('refuses what it cannot read in every mode, saying what could not be read', async () => {
    const verdict = refusal(await judge([], send({ unreadable: ['a result reference', 'an unknown header form'] })));
    expect(verdict.rule).toBe('default: unjudgeable');
    expect(verdict.error.message).toBe(
      'Not sent: the mail "Figures" cannot be checked against your operator\'s rules before it runs (a result reference; an unknown header form). This is a rule of this tool that protects your operator; nothing of this request reached the mail server.',
    );
    expect(verdict.error.details).toEqual({
      rule: { layer: 'default', rule: 'unjudgeable' },
      send: 'the mail "Figures"',
    });
  });

  it('refuses an answer to anyone under any restricting mode, and under a block-list in open mode', async () => {
    const anyone = send({ label: 'the vacation response', recipients: 'anyone' });
    const byMode = refusal(await judge([layer('user', { send: { mode: 'confirm' } })], anyone));
    expect(byMode.rule).toBe('user: send.mode=confirm');
    expect(byMode.error.message).toContain(
      "Not sent: the vacation response would go to anyone who writes, and your operator's policy lets mail go only where its confirm rule says.",
    );
    const byBlock = refusal(await judge([layer('inbox', { send: { block: ['evil.test'] } })], anyone));
    expect(byBlock.rule).toBe('inbox: send.block (evil.test)');
    expect(byBlock.error.message).toContain(
      'Not sent: the vacation response would go to anyone who writes, blocked addresses included.',
    );
    expect(await judge([layer('user', { send: { mode: 'open', allow: ['x.test'] } })], anyone)).toEqual({
      kind: 'allow',
      rule: 'default: send.mode=open',
    });
  });

  it('allows exactly as many recipients as the cap, and refuses one more, counting them', async () => {
    const layers = [layer('user', { send: { maxRecipients: 2 } })];
    const two = [addr('a@x.test'), addr('b@x.test')];
    expect((await judge(layers, send({ recipients: two }))).kind).toBe('allow');
    const verdict = refusal(await judge(layers, send({ recipients: [...two, addr('c@x.test')] })));
    expect(verdict.rule).toBe('user: send.maxRecipients');
    expect(verdict.error.message).toContain(
      'Not sent: the mail "Figures" has 3 recipients; your operator\'s policy allows at most 2 per mail.',
    );
  });

  it('names the blocked recipient as blocked, and any other refused one as not allowed', async () => {
    const layers = [layer('user', { send: { mode: 'allowlist', allow: ['x.test'], block: ['bad@x.test'] } })];
    const blocked = refusal(await judge(layers, send({ recipients: [addr('ok@x.test'), addr('bad@x.test')] })));
    expect(blocked.error.message).toContain("Not sent: bad@x.test is on your operator's block-list.");
    expect(blocked.error.details).toMatchObject({
      recipient: 'bad@x.test',
      rule: { rule: 'send.block', entry: 'bad@x.test' },
    });
    const outside = refusal(await judge(layers, send({ recipients: [addr('ok@x.test'), addr('eve@y.test')] })));
    expect(outside.error.message).toContain("Not sent: your operator's policy does not allow mail to eve@y.test.");
  });

  it('asks whether an address is known only when the known mode would refuse it', async () => {
    const lookups: string[] = [];
    const layers = [layer('inbox', { send: { mode: 'known', allow: ['friends.test'] } })];
    expect(
      (
        await judge(layers, send({ recipients: [addr('ana@friends.test'), addr('bob@example.test')] }), {
          known: ['bob@example.test'],
          lookups,
        })
      ).kind,
    ).toBe('allow');
    expect(lookups).toEqual(['bob@example.test']);
    expect(refusal(await judge(layers, send(), { known: [] })).rule).toBe('inbox: send.mode=known');
    const none: string[] = [];
    await judge([layer('inbox', { send: { mode: 'confirm' } })], send(), { lookups: none });
    await judge([layer('inbox', { send: { mode: 'allowlist' } })], send(), {
      lookups: none,
      known: ['bob@example.test'],
    });
    await judge([layer('inbox', { send: { mode: 'known', block: ['bob@example.test'] } })], send(), {
      lookups: none,
      known: ['bob@example.test'],
    });
    expect(none).toEqual([]);
  });

  it('asks for a yes for just the recipients that need it, under the first rule that asks', async () => {
    const layers = [layer('user', { send: { mode: 'confirm', allow: ['friends.test'] } })];
    const verdict = await judge(
      layers,
      send({ recipients: [addr('bob@example.test'), addr('ana@friends.test'), addr('carol@example.test')] }),
    );
    expect(verdict).toEqual({
      kind: 'confirm',
      rule: { layer: 'user', rule: 'send.mode=confirm' },
      recipients: ['bob@example.test', 'carol@example.test'],
    });
  });

  it('names the rule of the first recipient that needs a yes when several rules ask', async () => {
    const layers = [
      layer('machine', { send: { mode: 'confirm', allow: ['a.test'] } }),
      layer('inbox', { send: { mode: 'confirm', allow: ['b.test'] } }),
    ];
    const verdict = await judge(layers, send({ recipients: [addr('x@a.test'), addr('y@b.test')] }));
    expect(verdict).toEqual({
      kind: 'confirm',
      rule: { layer: 'inbox', rule: 'send.mode=confirm' },
      recipients: ['x@a.test', 'y@b.test'],
    });
  });

  it('lets an approved send past the modes, but never past a block-list or the scan', async () => {
    const layers = [layer('machine', { send: { mode: 'off' } }), layer('inbox', { send: { mode: 'confirm' } })];
    expect((await judge(layers, send(), { approved: true })).kind).toBe('allow');
    const blocked = [...layers, layer('user', { send: { block: ['bob@example.test'] } })];
    expect(refusal(await judge(blocked, send(), { approved: true })).rule).toBe('user: send.block (bob@example.test)');
    const leaking = send({ scanParts: [{ where: 'the subject', text: '-----BEGIN PRIVATE KEY-----' }] });
    expect(refusal(await judge(layers, leaking, { approved: true })).rule).toBe('default: send.secretScan');
  });

  it('refuses a send carrying a secret, listing every finding and where, unless the operator turned the scan off', async () => {
    const leaking = send({
      scanParts: [
        { where: 'the subject', text: '-----BEGIN PRIVATE KEY-----' },
        { where: 'the body', text: 'key amk_0123456789abcdefghij' },
      ],
    });
    const verdict = refusal(await judge([], leaking));
    expect(verdict.error.message).toContain(
      'Not sent: the mail "Figures" carries what looks like a secret (a private key in the subject; an Agent Mailbox apiKey in the body).',
    );
    expect(verdict.error.details).toMatchObject({
      rule: { layer: 'default', rule: 'send.secretScan' },
      findings: [
        { where: 'the subject', kind: 'a private key' },
        { where: 'the body', kind: 'an Agent Mailbox apiKey' },
      ],
    });
    expect(
      refusal(
        await judge(
          [layer('user', { send: { secretScan: 'off' } }), layer('inbox', { send: { secretScan: 'on' } })],
          leaking,
        ),
      ).rule,
    ).toBe('inbox: send.secretScan');
    expect(await judge([layer('user', { send: { secretScan: 'off' } })], leaking)).toEqual({
      kind: 'allow',
      rule: 'default: send.mode=open',
    });
  });

  it('scans a mail that needs a yes before anyone is asked', async () => {
    const leaking = send({ scanParts: [{ where: 'the body', text: '-----BEGIN PRIVATE KEY-----' }] });
    expect((await judge([layer('inbox', { send: { mode: 'confirm' } })], leaking)).kind).toBe('refuse');
  });
});
