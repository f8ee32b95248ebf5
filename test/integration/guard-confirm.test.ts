import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MailboxError } from '../../src/errors.js';
import { Deadline } from '../../src/gate/deadline.js';
import type { GuardAnswer, GuardQuestion } from '../../src/gate/outgoing.js';
import { readAudit } from '../../src/policy/records/audit-log.js';
import { listOutbox } from '../../src/policy/records/outbox-store.js';
import { startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * The `confirm` mode: the allow-list goes through, anyone else needs a person's yes, asked through
 * the door's confirm with what the mail is. Decline and cancel send nothing; with nobody to ask, or
 * no answer within the call's budget, the mail is held as a draft and recorded for the operator.
 */

let world: GuardWorld;

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'confirm');
});
afterEach(async () => world.clearPolicies());

const outside = 'ana@partner.example.org';

async function confirmMode(): Promise<void> {
  await world.writeUserPolicy({ send: { mode: 'confirm', allow: [world.address.bob] } });
}

function person(answer: GuardAnswer): { confirm: (q: GuardQuestion) => Promise<GuardAnswer>; asked: GuardQuestion[] } {
  const asked: GuardQuestion[] = [];
  return {
    asked,
    confirm: async (question) => {
      asked.push(question);
      return answer;
    },
  };
}

describe('confirm mode', () => {
  it('sends to the allow-list without asking anyone', async () => {
    await confirmMode();
    const who = person({ action: 'decline' });
    const result = await world.run(
      world.alice,
      { ops_file: 'send_mail', vars: { TO: world.address.bob, SUBJECT: 'Guard: listed', BODY: 'x' } },
      { guard: { confirm: who.confirm } },
    );
    expect(result.ok).toBe(true);
    expect(who.asked).toEqual([]);
  });

  it('asks with the recipients, subject, first lines and attachments, and sends on yes', async () => {
    await confirmMode();
    const who = person({ action: 'accept', content: {} });
    const file = join(world.base, 'plan.txt');
    await writeFile(file, 'a'.repeat(3000));
    const subject = 'Guard: asked and yes';
    const result = await world.run(
      world.alice,
      {
        ops_file: 'send_mail_blob_attachment',
        vars: { TO: outside, SUBJECT: subject, BODY: 'First line\nSecond line' },
        attachments: [file],
      },
      { guard: { confirm: who.confirm } },
    );
    expect(result.ok, result.summary).toBe(true);
    expect(who.asked).toHaveLength(1);
    expect(who.asked[0]?.fields).toEqual({});
    expect(who.asked[0]?.message).toContain(`To: ${outside}`);
    expect(who.asked[0]?.message).toContain(`Subject: ${subject}`);
    expect(who.asked[0]?.message).toContain('First line\nSecond line');
    expect(who.asked[0]?.message).toContain('plan.txt (3 KB)');
    expect((await world.traces(subject)).outside).toHaveLength(1);
    expect((await readAudit(world.alice.dir)).find((e) => e.subject === subject)).toMatchObject({
      verdict: 'sent',
      note: expect.stringContaining('a person confirmed'),
    });
  });

  for (const action of ['decline', 'cancel'] as const) {
    it(`sends nothing when the person answers ${action}, and says so`, async () => {
      await confirmMode();
      const subject = `Guard: person says ${action}`;
      const error = await world
        .run(
          world.alice,
          { ops_file: 'send_mail', vars: { TO: outside, SUBJECT: subject, BODY: 'x' } },
          { guard: { confirm: person({ action }).confirm } },
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MailboxError);
      expect((error as MailboxError).code).toBe('policy_refused');
      expect((error as MailboxError).message).toMatch(action === 'decline' ? /declined/ : /did not confirm/);
      expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
      expect((await readAudit(world.alice.dir)).find((e) => e.subject === subject)).toMatchObject({
        verdict: 'declined',
      });
    });
  }

  it('holds the mail as a draft for the operator when nobody can be asked, and records it', async () => {
    await confirmMode();
    const subject = 'Guard: nobody to ask';
    const result = await world.run(world.alice, {
      ops_file: 'send_mail',
      vars: { TO: outside, SUBJECT: subject, BODY: 'x' },
    });
    expect(result.ok).toBe(true);
    expect(result.summary).toMatch(/^HELD: /);
    expect(result.summary).toContain('NOT sent');
    const [held] = result.awaitingApproval ?? [];
    expect(held).toMatchObject({ recipients: [outside], subject, rule: 'user: send.mode=confirm' });
    const traces = await world.traces(subject);
    expect(traces.outside).toEqual([]);
    expect(traces.alice).toHaveLength(1);
    expect(traces.alice[0]).toMatchObject({
      keywords: { $draft: true },
      mailboxIds: { [String((await world.alice.readState()).session?.mailboxIdsByRole?.drafts)]: true },
    });
    const record = (await listOutbox(world.alice.dir)).find((r) => r.id === held?.outboxId);
    expect(record).toMatchObject({
      status: 'held',
      emailId: held?.emailId,
      rcptTo: [outside],
      mailFrom: world.address.alice,
      subject,
    });
    expect((await readAudit(world.alice.dir)).find((e) => e.subject === subject)).toMatchObject({
      verdict: 'held',
      ids: { outbox: held?.outboxId },
    });
  });

  it("holds the mail when no answer comes within the call's budget", async () => {
    await confirmMode();
    const subject = 'Guard: no answer in time';
    // The wait ends a quarter of the budget early to leave holding the mail time: 1.5 s of 6 s (a
    // budget of 2.5 s left 0.6 s, which a loaded 2-core machine needed more than once).
    const deadline = Deadline.start({ timeoutMs: 20_000, budgetMs: 6_000 });
    const started = Date.now();
    const result = await world.run(
      world.alice,
      { ops_file: 'send_mail', vars: { TO: outside, SUBJECT: subject, BODY: 'x' } },
      { deadline, guard: { confirm: () => new Promise<GuardAnswer>(() => undefined) } },
    );
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result.summary).toContain('no answer came in time');
    expect((await world.traces(subject)).outside).toEqual([]);
  });

  it('sends held mail the operator approved to exactly its recipients, and judges a submission of it to anyone more as new mail', async () => {
    await confirmMode();
    const subject = 'Guard: approved as held';
    const result = await world.run(world.alice, {
      ops_file: 'send_mail',
      vars: { TO: outside, SUBJECT: subject, BODY: 'x' },
    });
    const [held] = result.awaitingApproval ?? [];
    expect(held?.outboxId).toBeTypeOf('string');
    const approved = { outboxId: held!.outboxId, emailId: held!.emailId, rcptTo: [outside] };
    const submit = (rcptTo: string[]) => [
      [
        'EmailSubmission/set',
        {
          accountId: '$ACCOUNT_ID',
          create: {
            s: {
              emailId: held!.emailId,
              identityId: '$IDENTITY_ID',
              envelope: { mailFrom: { email: world.address.alice }, rcptTo: rcptTo.map((email) => ({ email })) },
            },
          },
        },
        's',
      ],
    ];
    // The approval names one recipient; this submission adds another: the guard asks again, nobody can answer, it is held.
    const widened = await world.ops(world.alice, submit([outside, 'eve@partner.example.org']), { guard: { approved } });
    expect(widened.summary).toMatch(/^HELD: /);
    expect((await world.traces(subject)).outside).toEqual([]);
    // The same recipients as approved: sent, and audited as approved.
    const sent = await world.ops(world.alice, submit([outside]), { guard: { approved } });
    expect(sent.summary).not.toMatch(/HELD/);
    expect((await world.traces(subject)).outside).toHaveLength(1);
    expect((await readAudit(world.alice.dir)).filter((e) => e.subject === subject).map((e) => e.verdict)).toEqual([
      'held',
      'held',
      'approved',
    ]);
  });
});
