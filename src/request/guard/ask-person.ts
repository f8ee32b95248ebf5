import type { CheckContext, GuardAnswer, GuardQuestion } from '../../gate/outgoing.js';
import type { SendUnderJudgement } from './send-judgement.js';

/**
 * A person's yes for mail the `confirm` rule holds, asked in the host (MCP elicitation) and awaited only
 * within the call's budget, leaving time to hold the mail. Nothing with an effect happens before it:
 * a 2026-07-28 client answers by rerunning the call.
 */

export type PersonAnswer = GuardAnswer | { action: 'timeout' };

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The question: one block per mail that waits for the yes. */
export function confirmQuestion(sends: readonly { send: SendUnderJudgement; recipients: string[] }[]): GuardQuestion {
  const blocks = sends.map(({ send }) => {
    const mail = send.mail;
    const to = send.recipients === 'anyone' ? 'anyone who writes' : send.recipients.map((r) => r.address).join(', ');
    const lines = [`To: ${to}`, `Subject: ${mail?.subject ?? '(none)'}`];
    if (mail?.attachments.length)
      lines.push(`Attachments: ${mail.attachments.map((a) => `${a.name} (${size(a.size)})`).join(', ')}`);
    if (mail?.firstLines) lines.push('', mail.firstLines);
    return lines.join('\n');
  });
  const needYes = [...new Set(sends.flatMap((s) => s.recipients))].join(', ');
  return {
    message: `Your agent wants to send ${sends.length === 1 ? 'this mail' : `these ${sends.length} mails`}. Your policy asks for your yes before mail goes to ${needYes}. Send ${sends.length === 1 ? 'it' : 'them'}?\n\n${blocks.join('\n\n---\n\n')}`,
    fields: {},
  };
}

/** Asks and waits for the answer, at most until the call's budget (less the time holding the mail needs). */
export async function askPerson(context: CheckContext, question: GuardQuestion): Promise<PersonAnswer> {
  const confirm = context.guard.confirm;
  if (!confirm || context.isWake) return { action: 'unavailable' };
  const left = context.deadline.budgetLeftMs();
  if (left === undefined) return context.deadline.offTheClock(() => confirm(question));
  const waitMs = left - Math.min(5_000, left / 4);
  if (waitMs <= 0) return { action: 'timeout' };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<PersonAnswer>((resolve) => {
    timer = setTimeout(() => resolve({ action: 'timeout' }), waitMs);
  });
  try {
    return await context.deadline.offTheClock(() => Promise.race([confirm(question), timeout]));
  } finally {
    clearTimeout(timer);
  }
}
