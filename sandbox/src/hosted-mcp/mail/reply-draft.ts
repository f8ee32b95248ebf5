import { HostedToolError } from '../tools/hosted-tool-error.js';
import type { DraftSpec } from './mail-plans.js';
import { oneLine } from './mail-views.js';

/**
 * The draft of a reply to an Email/get object (readCalls): to the original's From — not its
 * Reply-To, which the sender may point at anyone — "Re: " once, In-Reply-To and References so it
 * threads (RFC 5322 §3.6.4). Automatic mail is not answered (RFC 3834 §2: no mail loops).
 */
export function replyDraft(original: Record<string, unknown>, body: string): Omit<DraftSpec, 'attachments'> {
  const autoSubmitted = oneLine(original['header:Auto-Submitted:asText']).toLowerCase();
  const precedence = oneLine(original['header:Precedence:asText']).toLowerCase();
  const listId = oneLine(original['header:List-Id:asText']);
  if (
    (autoSubmitted !== '' && autoSubmitted !== 'no') ||
    ['bulk', 'list', 'junk'].includes(precedence) ||
    listId !== ''
  ) {
    throw new HostedToolError(
      'refused',
      'This message was sent automatically (a robot, a list or a bulk mailing); replying could start a mail loop, so no reply is sent.',
      'Use send_email to write to a person directly if an answer is really needed.',
      { tool: 'send_email' },
    );
  }
  const from = (Array.isArray(original['from']) ? original['from'] : []) as Array<{ name?: unknown; email?: unknown }>;
  const sender = from.find((entry) => typeof entry.email === 'string' && entry.email !== '');
  if (!sender || typeof sender.email !== 'string')
    throw new HostedToolError(
      'refused',
      'The message has no sender address to reply to.',
      'Use send_email with the address you want to write to.',
      { tool: 'send_email' },
    );
  const subject = oneLine(original['subject']);
  const messageIds = stringList(original['messageId']);
  const earlier =
    stringList(original['references']).length > 0
      ? stringList(original['references'])
      : stringList(original['inReplyTo']);
  return {
    to: [
      typeof sender.name === 'string' && sender.name !== ''
        ? { name: oneLine(sender.name), email: sender.email }
        : { email: sender.email },
    ],
    cc: [],
    bcc: [],
    subject: /^re:/i.test(subject) ? subject : `Re: ${subject}`.trimEnd(),
    body,
    ...(messageIds.length > 0 ? { inReplyTo: messageIds, references: [...earlier, ...messageIds] } : {}),
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
