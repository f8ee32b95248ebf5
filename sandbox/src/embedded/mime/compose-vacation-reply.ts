import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { VacationRecord } from '../store/records.js';
import { htmlToText } from './body-parts.js';

/** What a vacation reply is built from. */
export interface VacationReplyInput {
  from: { name: string; email: string };
  /** The sender being answered, lower-case. */
  to: string;
  vacation: VacationRecord;
  originalSubject: string;
  inReplyTo?: string;
  references: string[];
  domain: string;
  date: Date;
}

/** What the reply says when the inbox set no text of its own. */
const defaultReplyText = 'This inbox is away and will read your message later.';

/**
 * Builds the RFC 5322 vacation reply: Auto-Submitted: auto-replied marks it as automatic (RFC 3834
 * §5), In-Reply-To/References thread it under the message it answers (RFC 3834 §3.1.5), and the
 * subject is the user's own or "Auto: " and the original's (RFC 3834 §3.1.5).
 */
export async function composeVacationReply(
  input: VacationReplyInput,
): Promise<{ to: string; subject: string; messageId: string; raw: Buffer }> {
  const { vacation } = input;
  const subject = vacation.subject ?? `Auto: ${input.originalSubject}`.trim();
  const messageId = `${randomUUID()}@${input.domain}`;
  const composer = new MailComposer({
    from: { name: input.from.name, address: input.from.email },
    to: input.to,
    subject,
    messageId: `<${messageId}>`,
    ...(input.inReplyTo ? { inReplyTo: `<${input.inReplyTo}>` } : {}),
    ...(input.references.length ? { references: input.references.map((id) => `<${id}>`) } : {}),
    date: input.date,
    text:
      vacation.textBody ??
      (vacation.htmlBody === null ? defaultReplyText : htmlToText(vacation.htmlBody).replace(/\s+/g, ' ').trim()),
    ...(vacation.htmlBody !== null ? { html: vacation.htmlBody } : {}),
    headers: [{ key: 'Auto-Submitted', value: 'auto-replied' }],
    // The reply is built from the inbox's own settings only; never let the composer read files or URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return { to: input.to, subject, messageId, raw: await composer.compile().build() };
}
