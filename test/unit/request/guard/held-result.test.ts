import { describe, expect, it } from 'vitest';
import type { GuardNotice } from '../../../../src/gate/outgoing.js';
import type { JmapRequestResult } from '../../../../src/request/jmap-request-types.js';
import { withHeldMail } from '../../../../src/request/guard/held-result.js';

/** A result in which mail was held says so first, and the model's next step is to tell its person, not to send it another way. */

describe('withHeldMail', () => {
  const result: JmapRequestResult = {
    ok: true,
    summary: 'Email/set created 1.',
    dryRun: false,
    failures: [],
    next: ['list_inbox'],
  };
  const notice = (extra: Partial<GuardNotice> = {}): GuardNotice => ({
    kind: 'held',
    outboxId: 'h-1',
    emailId: 'M1',
    recipients: ['bob@example.test', 'carol@example.test'],
    subject: 'Figures',
    rule: 'inbox: send.mode=confirm',
    why: 'nobody to ask',
    ...extra,
  });

  it('leaves a result with nothing held as it is', () => {
    expect(withHeldMail(result, [])).toBe(result);
  });

  it('says first that each held mail was not sent, why, and that the next step is to tell the person', () => {
    const held = withHeldMail(result, [
      notice(),
      notice({
        outboxId: 'h-2',
        emailId: 'M2',
        recipients: ['dan@example.test'],
        subject: 'Late',
        why: 'no answer in time',
      }),
    ]);
    expect(held.summary).toBe(
      'HELD: "Figures" to bob@example.test, carol@example.test is held as a draft (M1) and was NOT sent: your operator\'s policy (inbox: send.mode=confirm) needs a person\'s yes, and nobody could be asked here. It awaits the operator (outbox id h-1). ' +
        '"Late" to dan@example.test is held as a draft (M2) and was NOT sent: your operator\'s policy (inbox: send.mode=confirm) needs a person\'s yes, and no answer came in time. It awaits the operator (outbox id h-2). Email/set created 1.',
    );
    expect(held.awaitingApproval).toEqual([
      {
        outboxId: 'h-1',
        emailId: 'M1',
        recipients: ['bob@example.test', 'carol@example.test'],
        subject: 'Figures',
        rule: 'inbox: send.mode=confirm',
      },
      {
        outboxId: 'h-2',
        emailId: 'M2',
        recipients: ['dan@example.test'],
        subject: 'Late',
        rule: 'inbox: send.mode=confirm',
      },
    ]);
    expect(held.next).toEqual([
      'Tell the person you work for that the mail awaits their approval (outbox id above); do not send it again another way.',
    ]);
    expect(held).toMatchObject({ ok: true, dryRun: false, failures: [] });
  });
});
