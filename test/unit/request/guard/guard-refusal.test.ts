import { describe, expect, it } from 'vitest';
import { declinedRefusal, policyRefusal, ruleName } from '../../../../src/request/guard/guard-refusal.js';

/**
 * What the model reads when the guard stops mail: which rule, whose rule, that nothing reached the
 * server, and that the operator is the one to ask — never how to loosen the rule.
 */

describe('ruleName', () => {
  it('names the layer and the rule, and the entry when a list entry decided', () => {
    expect(ruleName({ layer: 'user', rule: 'send.mode=allowlist' })).toBe('user: send.mode=allowlist');
    expect(ruleName({ layer: 'machine', rule: 'send.block', entry: 'evil.test' })).toBe(
      'machine: send.block (evil.test)',
    );
  });
});

describe('policyRefusal', () => {
  it("says which of the operator's rules refused, with its entry, and sends the model to the operator", () => {
    const error = policyRefusal(
      "eve@evil.test is on your operator's block-list",
      { layer: 'inbox', rule: 'send.block', entry: 'evil.test' },
      { recipient: 'eve@evil.test' },
    );
    expect(error.code).toBe('policy_refused');
    expect(error.message).toBe(
      "Not sent: eve@evil.test is on your operator's block-list. This is a rule your operator set (inbox policy, send.block, entry evil.test); nothing of this request reached the mail server.",
    );
    expect(error.hint).toBe(
      'Ask your operator (the person you work for) whether this should go out; only they can change their rules.',
    );
    expect(error.details).toEqual({
      rule: { layer: 'inbox', rule: 'send.block', entry: 'evil.test' },
      recipient: 'eve@evil.test',
    });
  });

  it("calls a built-in rule the tool's own, protecting the operator", () => {
    const error = policyRefusal('the mail cannot be checked', { layer: 'default', rule: 'unjudgeable' });
    expect(error.message).toBe(
      'Not sent: the mail cannot be checked. This is a rule of this tool that protects your operator; nothing of this request reached the mail server.',
    );
    expect(error.details).toEqual({ rule: { layer: 'default', rule: 'unjudgeable' } });
  });
});

describe('declinedRefusal', () => {
  it('tells apart a no from a question left unanswered, and what the model may do after each', () => {
    const rule = { layer: 'user' as const, rule: 'send.mode=confirm' };
    const declined = declinedRefusal('the mail "Figures"', 'decline', rule);
    expect(declined.code).toBe('policy_refused');
    expect(declined.message).toBe(
      'Not sent: the person you work for declined the mail "Figures" when asked; nothing was sent.',
    );
    expect(declined.hint).toBe('Do not send it again unless they ask you to.');
    expect(declined.details).toEqual({ rule, answer: 'decline' });
    const cancelled = declinedRefusal('these 2 mails', 'cancel', rule);
    expect(cancelled.message).toBe(
      'Not sent: the person you work for did not confirm these 2 mails when asked; nothing was sent.',
    );
    expect(cancelled.hint).toBe('Ask them in the conversation whether it should go, then try again if they say so.');
    expect(cancelled.details).toEqual({ rule, answer: 'cancel' });
  });
});
