import { describe, expect, it } from 'vitest';
import type { Invocation, JmapRequest } from '../../../../src/jmap/jmap-types.js';
import { readAudit } from '../../../../src/policy/records/audit-log.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { fakeCheck, mailBatch } from '../../../helpers/fake-check-context.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * The check stage on a batch whose creation ids or creates cannot be judged: refused in every mode,
 * before anything is read or asked, with every problem named, and recorded as refused.
 */

const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission'];
const draft = (to: string, subject: string, extra: Record<string, unknown> = {}) => ({
  mailboxIds: { 'mb-drafts': true },
  from: [{ email: 'ada@agent-mailbox.test' }],
  to: [{ email: to }],
  subject,
  bodyValues: { b: { value: 'x' } },
  textBody: [{ partId: 'b', type: 'text/plain' }],
  ...extra,
});

describe('a batch the guard cannot judge by its shape', () => {
  it('refuses a forbidden create and a harmless one under one id, in open mode, naming the id, and records it', async () => {
    const check = await fakeCheck();
    const request: JmapRequest = {
      using,
      methodCalls: [
        ['Email/set', { accountId: 'acc-1', create: { d: draft('eve@evil.test', 'Forbidden') } }, 'e1'],
        [
          'Email/set',
          { accountId: 'acc-1', create: { d: { ...draft('bob@example.test', 'Harmless'), mailboxIds: {} } } },
          'e2',
        ],
        ['EmailSubmission/set', { accountId: 'acc-1', create: { s: { emailId: '#d', identityId: 'id-1' } } }, 's'],
      ],
    };
    await check.inboxPolicy({ send: { block: ['evil.test'] } });
    const error = await refusal(checkBatch({ kind: 'batch', request }, check.context));
    expect(error.code).toBe('policy_refused');
    expect(error.message).toContain(
      'the creation id "d" is defined twice, by Email/set (call e1) and by Email/set (call e2)',
    );
    expect(error.message).toMatch(
      /^Not sent: this request cannot be checked against your operator's rules before it runs: /,
    );
    expect(error.hint).toBe(
      'Rewrite the request: give every create of the request its own creation id, and reference only creates whose ids the request spells out. Then send it again.',
    );
    expect(error.details).toEqual({
      rule: { layer: 'default', rule: 'unjudgeable' },
      problems: [expect.stringContaining('"d" is defined twice')],
    });
    expect(await readAudit(check.stateDir)).toMatchObject([
      {
        verdict: 'refused',
        rule: 'default: unjudgeable',
        recipients: [],
        note: expect.stringContaining('"d" is defined twice'),
      },
    ]);
    expect(check.reads).toEqual([]);
  });

  it('refuses a hidden Bcc name in a batch that sends nothing, and names both problems of a batch with two', async () => {
    const check = await fakeCheck();
    const quiet: JmapRequest = {
      using,
      methodCalls: [
        [
          'Email/set',
          { create: { d: draft('bob@example.test', 'Draft', { 'header:Bcc\u00a0': ' eve@evil.test' }) } },
          'e',
        ],
      ],
    };
    const error = await refusal(checkBatch({ kind: 'batch', request: quiet }, check.context));
    expect(error.message).toContain('names in "header:Bcc\\u{A0}" the field name "Bcc\\u{A0}"');
    expect(error.hint).toBe(
      'Rewrite the request: set each header field once, as header:Name:asForm with a plain field name (or as from, to, cc, bcc, subject), never as headers. Then send it again.',
    );
    const both: Invocation[] = [...quiet.methodCalls, ['Mailbox/set', { create: { d: { name: 'x' } } }, 'm']];
    const twice = await refusal(checkBatch({ kind: 'batch', request: { using, methodCalls: both } }, check.context));
    expect(twice.details?.problems).toHaveLength(2);
    expect(twice.hint).toContain(
      'own creation id, and reference only creates whose ids the request spells out; set each header field once',
    );
  });

  it('lets an ordinary batch through to the send rules', async () => {
    const check = await fakeCheck();
    const outcome = await checkBatch(
      { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Fine' }]) },
      check.context,
    );
    expect(outcome?.settle).toBeDefined();
    expect(await readAudit(check.stateDir)).toEqual([]);
  });
});
