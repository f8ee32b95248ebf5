import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Deadline } from '../../../../src/gate/deadline.js';
import type { GuardAnswer, GuardQuestion } from '../../../../src/gate/outgoing.js';
import type { JmapRequest } from '../../../../src/jmap/jmap-types.js';
import { readAudit } from '../../../../src/policy/records/audit-log.js';
import { listOutbox } from '../../../../src/policy/records/outbox-store.js';
import { markInboxWaking } from '../../../../src/policy/records/wake-read-only.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { fakeCheck, mailBatch, mailBatchAnswer, type FakeCheckOptions } from '../../../helpers/fake-check-context.js';
import { refusal as refusedBy } from '../../../helpers/mailbox-refusal.js';

/**
 * One batch under the operator's rules, from the check stage's side: what passes untouched, what is
 * refused (and recorded as refused, with the rule), what a person is asked and what their answer
 * does, what is held when nobody answers, and which sends count against the caps.
 */

const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'];
const clock = (iso: string) => () => Date.parse(iso);

const asking = (answer: GuardAnswer, asked: GuardQuestion[] = []): FakeCheckOptions => ({
  guard: { confirm: async (q) => (asked.push(q), answer) },
});

describe('a batch that sends nothing', () => {
  it('passes untouched when it only reads, or only changes the inbox without sending, whatever the rules', async () => {
    const check = await fakeCheck();
    await check.inboxPolicy({ send: { mode: 'off' } });
    const reads: JmapRequest = {
      using,
      methodCalls: [
        ['Email/query', { accountId: 'acc-1' }, 'q'],
        ['Email/get', { accountId: 'acc-1', ids: ['M1'] }, 'g'],
      ],
    };
    expect(await checkBatch({ kind: 'batch', request: reads }, check.context)).toBeUndefined();
    const quiet: JmapRequest = {
      using,
      methodCalls: [
        ['Mailbox/set', { accountId: 'acc-1', create: { m: { name: 'Projects' } } }, 'm'],
        ['Email/set', { accountId: 'acc-1', update: { M1: { 'keywords/$seen': true } } }, 'e'],
      ],
    };
    // Mail it writes is only recorded once the server answered (not a send): nothing is rewritten.
    expect((await checkBatch({ kind: 'batch', request: quiet }, check.context))?.request).toBeUndefined();
    expect(await readAudit(check.stateDir)).toEqual([]);
  });

  it('refuses every write while a wake holds the inbox read-only, and lets reads through', async () => {
    const check = await fakeCheck();
    const release = await markInboxWaking(check.userConfigDir, check.inbox);
    try {
      const error = await refusedBy(
        checkBatch(
          { kind: 'batch', request: { using, methodCalls: [['Mailbox/set', { create: { m: { name: 'x' } } }, 'm']] } },
          check.context,
        ),
      );
      expect(error.message).toContain('(Mailbox/set would change it)');
      expect(error.details).toEqual({ rule: { layer: 'default', rule: 'wake.readOnly' } });
      expect(
        await checkBatch(
          { kind: 'batch', request: { using, methodCalls: [['Email/get', { ids: ['M1'] }, 'g']] } },
          check.context,
        ),
      ).toBeUndefined();
    } finally {
      await release();
    }
    const wake = await fakeCheck({ isWake: true });
    const error = await refusedBy(
      checkBatch(
        { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'From a wake' }]) },
        wake.context,
      ),
    );
    expect(error.message).toContain('(Email/set, EmailSubmission/set would change it)');
  });
});

describe('methods the guard cannot judge', () => {
  it('refuses them outside open mode, naming the method and the mode, and records the refusal', async () => {
    const check = await fakeCheck();
    await check.userPolicy({ send: { mode: 'allowlist', allow: ['example.test'] } });
    const request: JmapRequest = {
      using,
      methodCalls: [
        ['Calendar/set', { create: {} }, 'c'],
        ['Thing/frob', {}, 't'],
      ],
    };
    const error = await refusedBy(checkBatch({ kind: 'batch', request }, check.context));
    expect(error.message).toBe(
      'Not sent: Calendar/set, Thing/frob cannot be judged by the guard, and outside "open" mode what cannot be judged does not run. This is a rule your operator set (user policy, send.mode=allowlist); nothing of this request reached the mail server.',
    );
    expect(error.details).toEqual({ rule: { layer: 'user', rule: 'send.mode=allowlist' } });
    expect(await readAudit(check.stateDir)).toMatchObject([
      {
        verdict: 'refused',
        rule: 'user: send.mode=allowlist',
        recipients: [],
        note: 'Calendar/set, Thing/frob',
        door: 'mcp',
        inbox: check.inbox,
      },
    ]);
  });

  it('lets them run in open mode', async () => {
    const check = await fakeCheck();
    const outcome = await checkBatch(
      { kind: 'batch', request: { using, methodCalls: [['Calendar/set', { create: {} }, 'c']] } },
      check.context,
    );
    expect(outcome).toBeDefined();
    expect(outcome?.request).toBeUndefined();
  });
});

describe('a refused send', () => {
  it('stops the whole batch, says which rule, and is recorded with its recipients and subject', async () => {
    const check = await fakeCheck();
    await check.inboxPolicy({ send: { mode: 'allowlist', allow: ['example.test'] } });
    const request = mailBatch([
      { to: ['bob@example.test'], subject: 'Fine' },
      { to: ['eve@evil.test'], subject: 'Not fine' },
    ]);
    const error = await refusedBy(checkBatch({ kind: 'batch', request }, check.context));
    expect(error.message).toBe(
      "Not sent: your operator's policy does not allow mail to eve@evil.test. This is a rule your operator set (inbox policy, send.mode=allowlist); nothing of this request reached the mail server.",
    );
    expect(error.details).toMatchObject({
      rule: { layer: 'inbox', rule: 'send.mode=allowlist' },
      send: 'the mail "Not fine"',
      recipient: 'eve@evil.test',
    });
    expect(await readAudit(check.stateDir)).toMatchObject([
      {
        verdict: 'refused',
        rule: 'inbox: send.mode=allowlist',
        recipients: ['eve@evil.test'],
        subject: 'Not fine',
        note: 'the mail "Not fine"',
      },
    ]);
  });

  it('applies the machine layer: its block-list binds whatever the inbox allows', async () => {
    const check = await fakeCheck();
    await writeFile(
      check.context.guard.machinePolicyPath!,
      JSON.stringify({ version: 1, send: { block: ['evil.test'] } }),
    );
    await check.inboxPolicy({ send: { mode: 'allowlist', allow: ['evil.test'] } });
    const error = await refusedBy(
      checkBatch({ kind: 'batch', request: mailBatch([{ to: ['eve@evil.test'], subject: 'Blocked' }]) }, check.context),
    );
    expect(error.details).toMatchObject({ rule: { layer: 'machine', rule: 'send.block', entry: 'evil.test' } });
  });

  it('refuses a submission for another account and one whose mail is created nowhere, recording no recipients', async () => {
    const check = await fakeCheck();
    const other = await refusedBy(
      checkBatch(
        {
          kind: 'batch',
          request: mailBatch([{ to: ['bob@example.test'], subject: 'Elsewhere' }], { accountId: 'acc-2' }),
        },
        check.context,
      ),
    );
    expect(other.message).toContain(
      "the mail of submission s0 cannot be checked against your operator's rules before it runs (it names another account (acc-2))",
    );
    const nowhere: JmapRequest = {
      using,
      methodCalls: [['EmailSubmission/set', { accountId: 'acc-1', create: { s: { emailId: '#ghost' } } }, 'c']],
    };
    const error = await refusedBy(checkBatch({ kind: 'batch', request: nowhere }, check.context));
    expect(error.message).toContain('(#ghost is created nowhere before the submission)');
    expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'unjudgeable' } });
    expect((await readAudit(check.stateDir)).map((e) => [e.verdict, e.rule, e.recipients, e.note])).toEqual([
      ['refused', 'default: unjudgeable', [], 'the mail of submission s0'],
      ['refused', 'default: unjudgeable', [], 'the mail of submission s'],
    ]);
  });

  it("judges a submission that names no account as the session's own", async () => {
    const check = await fakeCheck();
    await check.inboxPolicy({ send: { mode: 'allowlist', allow: ['example.test'] } });
    const request = mailBatch([{ to: ['eve@evil.test'], subject: 'No account' }]);
    delete (request.methodCalls[1]![1] as { accountId?: string }).accountId;
    expect((await refusedBy(checkBatch({ kind: 'batch', request }, check.context))).details).toMatchObject({
      recipient: 'eve@evil.test',
      rule: { rule: 'send.mode=allowlist' },
    });
  });

  it('judges a mail already on the server by its headers, and the envelope over the headers when there is one', async () => {
    const check = await fakeCheck();
    await check.inboxPolicy({ send: { mode: 'allowlist', allow: ['example.test'] } });
    check.store.emails.M7 = 'From: ada@agent-mailbox.test\r\nTo: eve@evil.test\r\nSubject: Old draft\r\n\r\nhi\r\n';
    const bySubmission = (create: Record<string, unknown>): JmapRequest => ({
      using,
      methodCalls: [['EmailSubmission/set', { accountId: 'acc-1', create: { s: create } }, 'c']],
    });
    const error = await refusedBy(
      checkBatch({ kind: 'batch', request: bySubmission({ emailId: 'M7' }) }, check.context),
    );
    expect(error.details).toMatchObject({ recipient: 'eve@evil.test', send: 'the mail "Old draft"' });
    const envelope = { mailFrom: { email: 'ada@agent-mailbox.test' }, rcptTo: [{ email: 'bob@example.test' }] };
    expect(
      await checkBatch({ kind: 'batch', request: bySubmission({ emailId: 'M7', envelope }) }, check.context),
    ).toMatchObject({ settle: expect.any(Function) });
  });
});

describe('the send caps', () => {
  it('counts every mail of the batch, refuses the batch that does not fit and records it with every recipient', async () => {
    const check = await fakeCheck({ guard: { now: clock('2030-01-01T10:00:00Z') } });
    await check.inboxPolicy({ send: { maxSendsPerHour: 1 } });
    const request = mailBatch([
      { to: ['bob@example.test'], subject: 'One' },
      { to: ['carol@example.test'], subject: 'Two' },
    ]);
    const error = await refusedBy(checkBatch({ kind: 'batch', request }, check.context));
    expect(error.details).toMatchObject({ rule: { layer: 'inbox', rule: 'send.maxSendsPerHour' } });
    expect(error.message).toContain('this request alone sends 2');
    expect(await readAudit(check.stateDir)).toMatchObject([
      { verdict: 'refused', rule: 'caps', recipients: ['bob@example.test', 'carol@example.test'] },
    ]);
    // The refused batch took no slot: one mail still fits.
    await checkBatch(
      { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'One' }]) },
      check.context,
    );
    await refusedBy(
      checkBatch({ kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Over' }]) }, check.context),
    );
  });

  it('takes the lower of the hourly and daily caps into account, and counts a send whatever the caps then', async () => {
    const check = await fakeCheck({ guard: { now: clock('2030-01-01T10:00:00Z') } });
    await checkBatch(
      { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Before any cap' }]) },
      check.context,
    );
    await check.userPolicy({ send: { maxSendsPerDay: 1, maxSendsPerHour: 5 } });
    const error = await refusedBy(
      checkBatch(
        { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Over the day' }]) },
        check.context,
      ),
    );
    expect(error.details).toMatchObject({
      rule: { layer: 'user', rule: 'send.maxSendsPerDay' },
      nextAllowedAt: '2030-01-02T10:00:00.000Z',
    });
  });

  it('refuses every send under a cap of 0, recording the mail\'s recipients and not an auto-reply\'s "anyone"', async () => {
    const check = await fakeCheck({ guard: { now: clock('2030-01-01T10:00:00Z') } });
    await check.userPolicy({ send: { maxSendsPerDay: 0 } });
    const request = mailBatch([{ to: ['bob@example.test'], subject: 'None allowed' }]);
    request.methodCalls.unshift([
      'VacationResponse/set',
      {
        accountId: 'acc-1',
        update: { singleton: { isEnabled: true, subject: 'Away', textBody: 'Back Monday.', htmlBody: null } },
      },
      'v',
    ]);
    const error = await refusedBy(checkBatch({ kind: 'batch', request }, check.context));
    expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.maxSendsPerDay' } });
    expect(await readAudit(check.stateDir)).toMatchObject([
      { verdict: 'refused', rule: 'caps', recipients: ['bob@example.test'] },
    ]);
  });

  it('counts an inbox once however its address is spelt in the credentials', async () => {
    const now = clock('2030-01-01T10:00:00Z');
    const first = await fakeCheck({ guard: { now }, inbox: 'Ada@Agent-Mailbox.TEST' });
    const second = await fakeCheck({ guard: { now }, inbox: 'ada@agent-mailbox.test', root: first.root });
    await first.inboxPolicy({ send: { maxSendsPerHour: 1 } });
    await checkBatch(
      { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'One' }]) },
      first.context,
    );
    await refusedBy(
      checkBatch({ kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Two' }]) }, second.context),
    );
  });

  it('does not ask a person about a batch the caps refuse', async () => {
    const asked: GuardQuestion[] = [];
    const check = await fakeCheck({
      guard: { confirm: async (q) => (asked.push(q), { action: 'accept' }), now: clock('2030-01-01T10:00:00Z') },
    });
    await check.inboxPolicy({ send: { mode: 'confirm', maxSendsPerDay: 1 } });
    await refusedBy(
      checkBatch(
        {
          kind: 'batch',
          request: mailBatch([
            { to: ['bob@example.test'], subject: 'A' },
            { to: ['carol@example.test'], subject: 'B' },
          ]),
        },
        check.context,
      ),
    );
    expect(asked).toEqual([]);
  });
});

describe("mail that needs a person's yes", () => {
  it('asks once for every mail that needs it, and sends on a yes, recording who confirmed', async () => {
    const asked: GuardQuestion[] = [];
    const check = await fakeCheck(asking({ action: 'accept' }, asked));
    await check.inboxPolicy({ send: { mode: 'confirm', allow: ['friends.test'] } });
    const request = mailBatch([
      { to: ['ana@friends.test'], subject: 'To a friend' },
      { to: ['bob@example.test'], subject: 'To Bob' },
    ]);
    const outcome = await checkBatch({ kind: 'batch', request }, check.context);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain(
      'Your agent wants to send this mail. Your policy asks for your yes before mail goes to bob@example.test.',
    );
    expect(outcome?.request).toBeUndefined();
    await outcome!.settle!({ kind: 'batch', response: mailBatchAnswer(2) });
    expect((await readAudit(check.stateDir)).map((e) => [e.verdict, e.note])).toEqual([
      ['sent', 'the mail "To a friend"'],
      ['sent', 'the mail "To Bob"; a person confirmed it in the host'],
    ]);
  });

  it('sends nothing when the person declines or dismisses the question, and records each mail as declined', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const check = await fakeCheck(asking({ action }));
      await check.inboxPolicy({ send: { mode: 'confirm' } });
      const one = await refusedBy(
        checkBatch(
          { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Alone' }]) },
          check.context,
        ),
      );
      expect(one.message).toBe(
        `Not sent: the person you work for ${action === 'decline' ? 'declined' : 'did not confirm'} the mail "Alone" when asked; nothing was sent.`,
      );
      expect(one.hint).toBe(
        action === 'decline'
          ? 'Do not send it again unless they ask you to.'
          : 'Ask them in the conversation whether it should go, then try again if they say so.',
      );
      expect(one.details).toEqual({ rule: { layer: 'inbox', rule: 'send.mode=confirm' }, answer: action });
      const two = await refusedBy(
        checkBatch(
          {
            kind: 'batch',
            request: mailBatch([
              { to: ['bob@example.test'], subject: 'First' },
              { to: ['carol@example.test'], subject: 'Second' },
            ]),
          },
          check.context,
        ),
      );
      expect(two.message).toContain(' these 2 mails when asked');
      expect(
        (await readAudit(check.stateDir)).map((e) => [e.verdict, e.rule, e.recipients, e.subject, e.note]),
      ).toEqual([
        ['declined', 'inbox: send.mode=confirm', ['bob@example.test'], 'Alone', action],
        ['declined', 'inbox: send.mode=confirm', ['bob@example.test'], 'First', action],
        ['declined', 'inbox: send.mode=confirm', ['carol@example.test'], 'Second', action],
      ]);
    }
  });

  it('holds the mail as a draft when nobody can be asked, sends the rest, and records the held mail for the operator', async () => {
    const check = await fakeCheck({ guard: { now: clock('2030-01-01T10:00:00Z') } });
    await check.inboxPolicy({ send: { mode: 'confirm', allow: ['friends.test'], maxSendsPerHour: 2 } });
    const request = mailBatch([
      { to: ['bob@example.test'], subject: 'Needs a yes' },
      { to: ['ana@friends.test'], subject: 'Goes' },
    ]);
    const outcome = await checkBatch({ kind: 'batch', request }, check.context);
    // The held submission is left out and its mail made a draft; the other one goes.
    expect(outcome?.request?.methodCalls[1]).toEqual([
      'EmailSubmission/set',
      { accountId: 'acc-1', create: { s1: { emailId: '#d1', identityId: 'id-1' } } },
      'c1',
    ]);
    const creates = outcome?.request?.methodCalls[0]?.[1].create as Record<string, Record<string, unknown>>;
    expect(creates.d0).toMatchObject({
      keywords: { $draft: true },
      mailboxIds: { 'mb-drafts': true },
      subject: 'Needs a yes',
    });
    expect(creates.d1).toMatchObject({ mailboxIds: { 'mb-sent': true }, subject: 'Goes' });
    expect(creates.d1?.keywords).toBeUndefined();
    await outcome!.settle!({ kind: 'batch', response: mailBatchAnswer(2) });
    expect(check.notices).toEqual([
      {
        kind: 'held',
        outboxId: expect.stringMatching(/^h-/),
        emailId: 'M0',
        recipients: ['bob@example.test'],
        subject: 'Needs a yes',
        rule: 'inbox: send.mode=confirm',
        why: 'nobody to ask',
      },
    ]);
    expect(await listOutbox(check.stateDir)).toMatchObject([
      { emailId: 'M0', rcptTo: ['bob@example.test'], status: 'held', reason: 'inbox: send.mode=confirm' },
    ]);
    // Only the mail that went took one of the hour's two slots.
    await checkBatch(
      { kind: 'batch', request: mailBatch([{ to: ['ana@friends.test'], subject: 'Fits' }]) },
      check.context,
    );
    await refusedBy(
      checkBatch({ kind: 'batch', request: mailBatch([{ to: ['ana@friends.test'], subject: 'Over' }]) }, check.context),
    );
  });

  it("holds the mail when no answer comes within the call's time", async () => {
    const check = await fakeCheck({
      guard: { confirm: () => new Promise<GuardAnswer>(() => undefined) },
      deadline: Deadline.start({ timeoutMs: 30_000, budgetMs: 0, now: () => 0 }),
    });
    await check.inboxPolicy({ send: { mode: 'confirm' } });
    const outcome = await checkBatch(
      { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Late' }]) },
      check.context,
    );
    // Nothing is left to send but the draft.
    expect(outcome?.request?.methodCalls.map(([method]) => method)).toEqual(['Email/set']);
    await outcome!.settle!({ kind: 'batch', response: mailBatchAnswer(1) });
    expect(check.notices.map((n) => n.why)).toEqual(['no answer in time']);
    expect((await readAudit(check.stateDir)).map((e) => [e.verdict, e.note])).toEqual([['held', 'no answer in time']]);
  });

  it('refuses what needs a yes but cannot be held as a draft (a Sieve redirect), saying why', async () => {
    const redirect: JmapRequest = {
      using,
      methodCalls: [
        [
          'Blob/upload',
          {
            accountId: 'acc-1',
            create: { b: { data: [{ 'data:asText': 'require "redirect";\nredirect "bob@example.test";\n' }] } },
          },
          'u',
        ],
        ['SieveScript/set', { accountId: 'acc-1', create: { s: { name: 'fwd', blobId: '#b' } } }, 's'],
      ],
    };
    const nobody = await fakeCheck();
    await nobody.inboxPolicy({ send: { mode: 'confirm' } });
    const error = await refusedBy(checkBatch({ kind: 'batch', request: redirect }, nobody.context));
    expect(error.message).toContain(
      "Not sent: the Sieve script s (redirects) needs a person's yes, and nobody can be asked here.",
    );
    const late = await fakeCheck({
      guard: { confirm: () => new Promise<GuardAnswer>(() => undefined) },
      deadline: Deadline.start({ timeoutMs: 30_000, budgetMs: 0, now: () => 0 }),
    });
    await late.inboxPolicy({ send: { mode: 'confirm' } });
    expect((await refusedBy(checkBatch({ kind: 'batch', request: redirect }, late.context))).message).toContain(
      "needs a person's yes, and none came in time.",
    );
  });
});

describe('mail the operator approved at a terminal', () => {
  const held = 'From: ada@agent-mailbox.test\r\nTo: bob@example.test\r\nSubject: Held\r\n\r\nhi\r\n';
  const submit = (envelopeTo?: string[]): JmapRequest => ({
    using,
    methodCalls: [
      [
        'EmailSubmission/set',
        {
          accountId: 'acc-1',
          create: {
            s: {
              emailId: 'M1',
              ...(envelopeTo
                ? {
                    envelope: {
                      mailFrom: { email: 'ada@agent-mailbox.test' },
                      rcptTo: envelopeTo.map((email) => ({ email })),
                    },
                  }
                : {}),
            },
          },
        },
        'c',
      ],
    ],
  });

  it('goes to exactly the approved recipients past the mode, but not past the block-list', async () => {
    const approved = { outboxId: 'h-1', emailId: 'M1', rcptTo: ['bob@example.test'] };
    const check = await fakeCheck({ guard: { approved } });
    check.store.emails.M1 = held;
    await check.inboxPolicy({ send: { mode: 'allowlist' } });
    const outcome = await checkBatch({ kind: 'batch', request: submit(['bob@example.test']) }, check.context);
    await outcome!.settle!({
      kind: 'batch',
      response: {
        methodResponses: [['EmailSubmission/set', { created: { s: { id: 'S1' } } }, 'c']],
        sessionState: 's',
      },
    });
    expect(await readAudit(check.stateDir)).toMatchObject([
      { verdict: 'approved', door: 'operator', recipients: ['bob@example.test'] },
    ]);
    // One more or one other recipient is not what was approved.
    for (const rcptTo of [['bob@example.test', 'carol@example.test'], ['carol@example.test']]) {
      expect(
        (await refusedBy(checkBatch({ kind: 'batch', request: submit(rcptTo) }, check.context))).details,
      ).toMatchObject({ rule: { rule: 'send.mode=allowlist' } });
    }
    // Another mail under the same approval is judged as any other.
    check.store.emails.M2 = held;
    await refusedBy(
      checkBatch(
        {
          kind: 'batch',
          request: {
            using,
            methodCalls: [['EmailSubmission/set', { accountId: 'acc-1', create: { s: { emailId: 'M2' } } }, 'c']],
          },
        },
        check.context,
      ),
    );
    await check.inboxPolicy({ send: { mode: 'allowlist', block: ['bob@example.test'] } });
    expect(
      (await refusedBy(checkBatch({ kind: 'batch', request: submit(['bob@example.test']) }, check.context))).details,
    ).toMatchObject({ rule: { rule: 'send.block' } });
  });
});

describe('the known mode', () => {
  const writesIn = (authservId: string) =>
    `${authservId}; spf=pass smtp.mailfrom=example.test; dmarc=pass (p=reject) header.from=example.test`;

  it("knows an address whose mail passed DMARC at the inbox's own authserv-id, and no other", async () => {
    const check = await fakeCheck();
    await check.inboxPolicy({ send: { mode: 'known' } });
    check.store.received.push(
      { from: 'bob@example.test', authenticationResults: [writesIn('agent-mailbox.test')] },
      { from: 'eve@example.test', authenticationResults: [writesIn('elsewhere.test')] },
    );
    expect(
      await checkBatch(
        { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Known' }]) },
        check.context,
      ),
    ).toMatchObject({ settle: expect.any(Function) });
    expect(
      (
        await refusedBy(
          checkBatch(
            { kind: 'batch', request: mailBatch([{ to: ['eve@example.test'], subject: 'Unknown' }]) },
            check.context,
          ),
        )
      ).details,
    ).toMatchObject({ rule: { layer: 'inbox', rule: 'send.mode=known' } });
  });

  it('trusts the authserv-id the account is configured with, not a field a sender wrote under the inbox domain', async () => {
    const check = await fakeCheck({ config: { authservId: 'MX.Mail-Service.test.' } });
    await check.inboxPolicy({ send: { mode: 'known' } });
    // The service stamps its verdicts as mx.mail-service.test; a field under the inbox domain is the sender's own words.
    check.store.received.push({
      from: 'eve@example.test',
      authenticationResults: [
        writesIn('agent-mailbox.test'),
        'mx.mail-service.test; dmarc=fail header.from=example.test',
      ],
    });
    check.store.received.push({ from: 'bob@example.test', authenticationResults: [writesIn('mx.mail-service.test')] });
    await refusedBy(
      checkBatch(
        { kind: 'batch', request: mailBatch([{ to: ['eve@example.test'], subject: 'Forged' }]) },
        check.context,
      ),
    );
    expect(
      await checkBatch(
        { kind: 'batch', request: mailBatch([{ to: ['bob@example.test'], subject: 'Known' }]) },
        check.context,
      ),
    ).toMatchObject({ settle: expect.any(Function) });
  });
});
