import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { tightensAutoReplies } from '../../../../src/policy/policy-change.js';
import { readAutoReplyState } from '../../../../src/policy/records/auto-reply-state.js';
import { withAutoReplyRules } from '../../../../src/request/guard/auto-reply-rules.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { checkOutgoing } from '../../../../src/request/check-outgoing.js';
import { fakeCheck, mailBatch, mailBatchAnswer, type FakeCheck } from '../../../helpers/fake-check-context.js';

/**
 * A vacation response enabled while sending was open keeps answering whoever writes after the
 * operator tightens the rules, unless the tool switches it off: on the inbox's next use (a read
 * counts), by a switch-off added to the batch going out, its answer hidden from the caller.
 */

const vacationCapability = 'urn:ietf:params:jmap:vacationresponse';
const reads: JmapRequest = {
  using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
  methodCalls: [['Email/query', { accountId: 'acc-1' }, 'q']],
};

interface World {
  check: FakeCheck;
  context: CheckContext;
  vacation: Record<string, unknown>;
  lookups: number;
  /** How the next lookups fail: the request (e.g. Cyrus's gateway answering HTTP 502), the method, or an answer without a list. */
  failing?: 'request' | 'method' | 'no list';
}

async function world(
  vacation: Record<string, unknown> = { id: 'singleton', isEnabled: true, subject: 'Away', textBody: 'Back Monday.' },
  capabilities = [vacationCapability],
): Promise<World> {
  const check = await fakeCheck({ session: { accountCapabilities: ['urn:ietf:params:jmap:mail', ...capabilities] } });
  const out: World = { check, context: check.context, vacation, lookups: 0 };
  out.context = {
    ...check.context,
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      const [method, args, callId] = request.methodCalls[0]!;
      if (method !== 'VacationResponse/get') return check.context.read(request);
      out.lookups += 1;
      if (out.failing === 'request') throw new Error('JMAP request failed on the server (HTTP 502)');
      // As a server answers: under the call's own id, for the account asked about, with the capability declared.
      const error = (type: string) =>
        ({ methodResponses: [['error', { type }, callId]], sessionState: 's' }) as JmapResponse;
      if (out.failing === 'method') return error('serverFail');
      if (!request.using.includes('urn:ietf:params:jmap:core') || !request.using.includes(vacationCapability))
        return error('unknownMethod');
      if (args.accountId !== 'acc-1') return error('accountNotFound');
      if (out.failing === 'no list')
        return { methodResponses: [[method, {}, callId]], sessionState: 's' } as JmapResponse;
      return { methodResponses: [[method, { list: [out.vacation] }, callId]], sessionState: 's' } as JmapResponse;
    },
  };
  return out;
}

const switchOff = [
  'VacationResponse/set',
  { accountId: 'acc-1', update: { singleton: { isEnabled: false } } },
  'agent-mailbox-auto-reply-off',
];
const answered = (request: JmapRequest, extra: JmapResponse['methodResponses'], updated = true): JmapResponse =>
  ({
    methodResponses: [
      [
        'VacationResponse/set',
        updated ? { updated: { singleton: null } } : { notUpdated: { singleton: { type: 'forbidden' } } },
        'agent-mailbox-auto-reply-off',
      ],
      ...extra,
    ],
    sessionState: 's',
  }) as JmapResponse;

describe('an enabled auto-reply after the rules tighten', () => {
  it('is switched off on the next read, the caller seeing only its own answers, and looked at once per rule change', async () => {
    const w = await world();
    await w.check.inboxPolicy({ send: { mode: 'allowlist', allow: ['bob@example.test'] } });
    const outcome = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    expect(outcome?.request?.methodCalls).toEqual([switchOff, ...reads.methodCalls]);
    expect(outcome?.request?.using).toContain(vacationCapability);
    const seen = await outcome?.settle?.({
      kind: 'batch',
      response: answered(outcome.request!, [['Email/query', { ids: [] }, 'q']]),
    });
    expect(seen?.methodResponses).toEqual([['Email/query', { ids: [] }, 'q']]);
    const state = await readAutoReplyState(w.check.stateDir);
    expect(state.pending).toBeUndefined();
    expect(state.switchedOffAt).toBeDefined();
    w.vacation = { ...w.vacation, isEnabled: false };
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    expect(w.lookups).toBe(1);
  });

  it('stays owed when the service does not switch it off, and is tried again at the next use', async () => {
    const w = await world();
    await w.check.inboxPolicy({ send: { mode: 'off' } });
    const first = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    await first?.settle?.({ kind: 'batch', response: answered(first.request!, [], false) });
    expect((await readAutoReplyState(w.check.stateDir)).pending).toBe(true);
    const failed = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    await failed?.settle?.({ kind: 'failed', error: new Error('offline') });
    const again = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    expect(again?.request?.methodCalls[0]).toEqual(switchOff);
    expect(w.lookups).toBe(3);
  });

  it('when the vacation response cannot be read, lets the batch go on and looks again at the next use', async () => {
    const w = await world();
    await w.check.inboxPolicy({ send: { mode: 'allowlist', allow: ['bob@example.test'] } });
    w.failing = 'request';
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    w.failing = 'method';
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    w.failing = 'no list';
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    expect((await readAutoReplyState(w.check.stateDir)).checked).toBeUndefined();
    delete w.failing;
    const again = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    expect(again?.request?.methodCalls).toEqual([switchOff, ...reads.methodCalls]);
    expect(w.lookups).toBe(4);
  });

  it("is reached by a user rule and by a block entry, on the inbox's next use", async () => {
    const w = await world();
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    expect(w.lookups).toBe(0);
    await w.check.userPolicy({ send: { block: ['eve@evil.test'] } });
    expect((await checkOutgoing({ kind: 'batch', request: reads }, w.context))?.request?.methodCalls[0]).toEqual(
      switchOff,
    );
  });

  it('rides on a batch that sends, whose own settle still sees every answer and records the mail', async () => {
    const w = await world();
    await w.check.userPolicy({ send: { mode: 'allowlist', allow: ['bob@example.test'] } });
    const request = mailBatch([{ to: ['bob@example.test'], subject: 'Allowed' }]);
    const outcome = await checkBatch({ kind: 'batch', request }, w.context);
    expect(outcome?.request?.methodCalls.map(([method]) => method)).toEqual([
      'VacationResponse/set',
      'Email/set',
      'EmailSubmission/set',
    ]);
    const seen = await outcome?.settle?.({
      kind: 'batch',
      response: answered(outcome.request!, mailBatchAnswer(1).methodResponses),
    });
    expect(seen?.methodResponses.map(([method]) => method)).toEqual(['Email/set', 'EmailSubmission/set']);
    await expect(
      (await import('../../../../src/policy/records/audit-log.js')).readAudit(w.check.stateDir),
    ).resolves.toMatchObject([{ verdict: 'sent', recipients: ['bob@example.test'] }]);
  });

  it('picks a call id the batch does not use', async () => {
    const w = await world();
    await w.check.inboxPolicy({ send: { mode: 'off' } });
    const request: JmapRequest = {
      ...reads,
      methodCalls: [['Email/query', { accountId: 'acc-1' }, 'agent-mailbox-auto-reply-off']],
    };
    const outcome = await withAutoReplyRules({ kind: 'batch', request }, w.context, undefined);
    expect(outcome?.request?.methodCalls[0]?.[2]).toBe('agent-mailbox-auto-reply-off-2');
    const both: JmapRequest = {
      ...reads,
      methodCalls: [...request.methodCalls, ['Email/get', { accountId: 'acc-1' }, 'agent-mailbox-auto-reply-off-2']],
    };
    const third = await withAutoReplyRules({ kind: 'batch', request: both }, w.context, undefined);
    expect(third?.request?.methodCalls[0]?.[2]).toBe('agent-mailbox-auto-reply-off-3');
  });

  it("is counted switched off by its own answer wherever it stands, and stays owed when the server's answer lacks it", async () => {
    const w = await world();
    await w.check.inboxPolicy({ send: { mode: 'off' } });
    const first = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    const seen = await first?.settle?.({
      kind: 'batch',
      response: {
        methodResponses: [
          ['Email/query', { ids: [] }, 'q'],
          ['VacationResponse/set', { updated: { singleton: null } }, 'agent-mailbox-auto-reply-off'],
        ],
        sessionState: 's',
      } as JmapResponse,
    });
    expect(seen?.methodResponses).toEqual([['Email/query', { ids: [] }, 'q']]);
    const off = await readAutoReplyState(w.check.stateDir);
    expect(off.pending).toBeUndefined();
    expect(off.switchedOffAt).toBeDefined();

    const v = await world();
    await v.check.inboxPolicy({ send: { mode: 'off' } });
    const unanswered = await checkOutgoing({ kind: 'batch', request: reads }, v.context);
    await unanswered?.settle?.({
      kind: 'batch',
      response: { methodResponses: [['Email/query', { ids: [] }, 'q']], sessionState: 's' } as JmapResponse,
    });
    expect(await readAutoReplyState(v.check.stateDir)).toMatchObject({ pending: true });
    expect((await readAutoReplyState(v.check.stateDir)).switchedOffAt).toBeUndefined();
  });

  it('keeps when it was switched off through later rule changes', async () => {
    const w = await world();
    await w.check.inboxPolicy({ send: { mode: 'off' } });
    const first = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    await first?.settle?.({ kind: 'batch', response: answered(first.request!, []) });
    const { switchedOffAt } = await readAutoReplyState(w.check.stateDir);
    expect(switchedOffAt).toBeDefined();
    w.vacation = { ...w.vacation, isEnabled: false };
    await w.check.inboxPolicy({ send: { mode: 'allowlist' } });
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    expect((await readAutoReplyState(w.check.stateDir)).switchedOffAt).toBe(switchedOffAt);
    await w.check.inboxPolicy({});
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    expect(await readAutoReplyState(w.check.stateDir)).toMatchObject({ switchedOffAt });
  });

  it('when the rules loosen before an owed switch, still switches off one that carries a secret, wherever in its text', async () => {
    for (const key of ['subject', 'textBody', 'htmlBody']) {
      const w = await world({ id: 'singleton', isEnabled: true, subject: 'Away', textBody: 'Back Monday.' });
      await w.check.inboxPolicy({ send: { mode: 'off' } });
      await checkOutgoing({ kind: 'batch', request: reads }, w.context);
      w.vacation = { ...w.vacation, [key]: 'Reach me with -----BEGIN PRIVATE KEY-----\nMIIB' };
      await w.check.inboxPolicy({});
      const outcome = await checkOutgoing({ kind: 'batch', request: reads }, w.context);
      expect(outcome?.request?.methodCalls[0], key).toEqual(switchOff);
    }
  });
});

describe('an auto-reply left alone', () => {
  it('when the rules allow it, it is off, or the account has none, with no lookup while the rules open to anyone', async () => {
    const open = await world();
    expect(await checkOutgoing({ kind: 'batch', request: reads }, open.context)).toBeUndefined();
    expect(open.lookups).toBe(0);
    const off = await world({ id: 'singleton', isEnabled: false });
    await off.check.inboxPolicy({ send: { mode: 'off' } });
    expect(await checkOutgoing({ kind: 'batch', request: reads }, off.context)).toBeUndefined();
    expect(off.lookups).toBe(1);
    const none = await world(undefined, []);
    await none.check.inboxPolicy({ send: { mode: 'off' } });
    expect(await checkOutgoing({ kind: 'batch', request: reads }, none.context)).toBeUndefined();
    expect(none.lookups).toBe(0);
  });

  it('when the rules loosen again before the switch happened, the owed switch is dropped', async () => {
    const w = await world();
    await w.check.inboxPolicy({ send: { mode: 'off' } });
    await checkOutgoing({ kind: 'batch', request: reads }, w.context);
    await w.check.inboxPolicy({});
    expect(await checkOutgoing({ kind: 'batch', request: reads }, w.context)).toBeUndefined();
    expect((await readAutoReplyState(w.check.stateDir)).pending).toBeUndefined();
  });
});

describe('which changes reach an auto-reply at once', () => {
  it('a send mode other than open, a new block entry; not the scan, which met the text when it was enabled', () => {
    expect(tightensAutoReplies({ version: 1 }, { version: 1, send: { mode: 'allowlist' } })).toBe(true);
    expect(
      tightensAutoReplies({ version: 1, send: { mode: 'confirm' } }, { version: 1, send: { mode: 'known' } }),
    ).toBe(true);
    expect(tightensAutoReplies({ version: 1 }, { version: 1, send: { block: ['eve@evil.test'] } })).toBe(true);
    expect(
      tightensAutoReplies({ version: 1, send: { secretScan: 'off' } }, { version: 1, send: { secretScan: 'on' } }),
    ).toBe(false);
    expect(
      tightensAutoReplies(
        { version: 1, send: { mode: 'off', block: ['a.test'] } },
        { version: 1, send: { mode: 'off', block: [] } },
      ),
    ).toBe(false);
    expect(tightensAutoReplies({ version: 1 }, { version: 1, send: { mode: 'open', maxSendsPerHour: 3 } })).toBe(false);
  });
});
