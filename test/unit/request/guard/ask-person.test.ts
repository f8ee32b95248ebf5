import { describe, expect, it } from 'vitest';
import type { CheckContext, GuardAnswer, GuardQuestion } from '../../../../src/gate/outgoing.js';
import { Deadline } from '../../../../src/gate/deadline.js';
import { normaliseAddress, type NormalisedAddress } from '../../../../src/policy/address-matcher.js';
import { askPerson, confirmQuestion } from '../../../../src/request/guard/ask-person.js';
import type { SendUnderJudgement } from '../../../../src/request/guard/send-judgement.js';

/** What a person is asked before mail the operator's `confirm` rule holds goes out, and how long the answer is awaited. */

const bob = normaliseAddress('bob@example.test') as NormalisedAddress;
const carol = normaliseAddress('carol@example.test') as NormalisedAddress;

function send(
  extra: Partial<SendUnderJudgement> = {},
  mail: Partial<NonNullable<SendUnderJudgement['mail']>> = {},
): SendUnderJudgement {
  return {
    label: 'mail',
    kind: 'mail',
    recipients: [bob, carol],
    unreadable: [],
    scanParts: [],
    slots: 1,
    mail: {
      subject: 'Figures',
      headerRecipients: { addresses: [], unreadable: [] },
      firstLines: 'Hello Bob,\nthe figures.',
      attachments: [],
      scanParts: [],
      ...mail,
    },
    ...extra,
  };
}

describe('confirmQuestion', () => {
  it('shows one mail with its recipients, subject, attachments by size and first lines', () => {
    const question = confirmQuestion([
      {
        send: send(
          {},
          {
            attachments: [
              { name: 'a.txt', size: 1023 },
              { name: 'b.pdf', size: 1024 * 1024 - 1 },
              { name: 'c.zip', size: 3 * 1024 * 1024 },
            ],
          },
        ),
        recipients: ['bob@example.test'],
      },
    ]);
    expect(question.message).toBe(
      'Your agent wants to send this mail. Your policy asks for your yes before mail goes to bob@example.test. Send it?\n\n' +
        'To: bob@example.test, carol@example.test\nSubject: Figures\nAttachments: a.txt (1023 B), b.pdf (1024 KB), c.zip (3.0 MB)\n\nHello Bob,\nthe figures.',
    );
    expect(question.fields).toEqual({});
  });

  it('shows several mails apart, each recipient needing a yes once, and what a mail without text has', () => {
    const question = confirmQuestion([
      { send: send(), recipients: ['bob@example.test'] },
      { send: send({ recipients: 'anyone', mail: undefined }), recipients: ['bob@example.test', '*'] },
    ]);
    expect(question.message).toBe(
      'Your agent wants to send these 2 mails. Your policy asks for your yes before mail goes to bob@example.test, *. Send them?\n\n' +
        'To: bob@example.test, carol@example.test\nSubject: Figures\n\nHello Bob,\nthe figures.\n\n---\n\nTo: anyone who writes\nSubject: (none)',
    );
  });
});

describe('askPerson', () => {
  const question: GuardQuestion = { message: 'send?', fields: {} };
  function context(
    confirm: ((q: GuardQuestion) => Promise<GuardAnswer>) | undefined,
    deadline: Deadline,
    isWake = false,
  ): CheckContext {
    return { guard: confirm ? { confirm } : {}, isWake, deadline } as Partial<CheckContext> as CheckContext;
  }

  it('answers unavailable when nobody can be asked: no confirm in the door, or a wake run', async () => {
    expect(await askPerson(context(undefined, Deadline.start({ timeoutMs: 10_000 })), question)).toEqual({
      action: 'unavailable',
    });
    expect(
      await askPerson(
        context(async () => ({ action: 'accept' }), Deadline.start({ timeoutMs: 10_000 }), true),
        question,
      ),
    ).toEqual({ action: 'unavailable' });
  });

  it("passes the person's answer on, and the question as asked", async () => {
    const asked: GuardQuestion[] = [];
    expect(
      await askPerson(
        context(async (q) => (asked.push(q), { action: 'decline' }), Deadline.start({ timeoutMs: 10_000 })),
        question,
      ),
    ).toEqual({ action: 'decline' });
    expect(asked).toEqual([question]);
  });

  // The call's clock stands still: what is left of the budget is exactly budgetMs.
  const still = (budgetMs: number): Deadline => Deadline.start({ timeoutMs: 10_000, budgetMs, now: () => 1_000 });

  it('asks within a budget and gives up a quarter of it early, keeping time to hold the mail', async () => {
    let asked = 0;
    const answer = await askPerson(
      context(() => ((asked += 1), new Promise<GuardAnswer>(() => undefined)), still(40)),
      question,
    );
    expect(answer).toEqual({ action: 'timeout' });
    expect(asked).toBe(1);
  });

  it('does not ask when no budget is left', async () => {
    let asked = false;
    const answer = await askPerson(
      context(async () => ((asked = true), { action: 'accept' }), still(0)),
      question,
    );
    expect(answer).toEqual({ action: 'timeout' });
    expect(asked).toBe(false);
  });

  it('waits as long as the person takes when the call has no budget', async () => {
    const later = (): Promise<GuardAnswer> =>
      new Promise((resolve) => setTimeout(() => resolve({ action: 'accept' }), 30));
    expect(await askPerson(context(later, Deadline.start({ timeoutMs: 10_000 })), question)).toEqual({
      action: 'accept',
    });
  });

  it('takes an answer that comes within the budget', async () => {
    expect(
      await askPerson(
        context(async () => ({ action: 'accept' }), still(20_000)),
        question,
      ),
    ).toEqual({ action: 'accept' });
  });
});
