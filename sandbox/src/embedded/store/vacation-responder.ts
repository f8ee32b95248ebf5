import type { ParsedMessage, RawHeader } from '../mime/parse-message.js';
import { composeVacationReply } from '../mime/compose-vacation-reply.js';
import { asAddresses, asMessageIds, asText } from '../mime/header-forms.js';
import type { InboxAccount } from './inbox-account.js';
import { utcDate, type MailNetwork } from './mail-network.js';

/** How long a sender who got the vacation reply is left alone: Sieve's default of 7 days (RFC 5230 §4.1). */
export const vacationReplyPeriodMs = 7 * 24 * 60 * 60 * 1000;

/** A composed vacation reply and where it goes. */
export interface VacationReply {
  to: string;
  subject: string;
  messageId: string;
  raw: Buffer;
}

/**
 * The reply an inbox's VacationResponse (RFC 8621 §8) sends to a message just delivered, or
 * undefined when none is due. A real server runs this as a Sieve vacation action, so its rules
 * apply: only inside fromDate–toDate, never to automated mail or lists (RFC 3834 §2, RFC 5230
 * §4.6), only when the inbox is among the visible recipients (RFC 5230 §4.5), and once per sender
 * per period (RFC 5230 §4.2).
 */
export async function vacationReplyTo(
  network: MailNetwork,
  recipient: InboxAccount,
  message: ParsedMessage,
  envelopeFrom: string,
): Promise<VacationReply | undefined> {
  const vacation = recipient.vacation;
  const now = network.now();
  if (!vacation.isEnabled) return undefined;
  if (vacation.fromDate && now.getTime() < Date.parse(vacation.fromDate)) return undefined;
  if (vacation.toDate && now.getTime() >= Date.parse(vacation.toDate)) return undefined;
  const sender = envelopeFrom.trim().toLowerCase();
  if (
    !isAnswerableSender(sender, recipient.address) ||
    isAutomated(message.headers) ||
    !isAddressedTo(recipient.address, message.headers)
  )
    return undefined;
  const last = recipient.vacationReplies.get(sender);
  if (last !== undefined && now.getTime() - Date.parse(last) < vacationReplyPeriodMs) return undefined;
  recipient.noteVacationReply(sender, utcDate(now));
  const header = (name: string): string | undefined =>
    message.headers.findLast((entry) => entry.name.toLowerCase() === name)?.value;
  const originalId = asMessageIds(header('message-id') ?? '')?.[0];
  const identity = recipient.identities.find((candidate) => candidate.id === recipient.address);
  return composeVacationReply({
    from: { name: identity?.name ?? '', email: recipient.address },
    to: sender,
    vacation,
    originalSubject: asText(header('subject') ?? ''),
    ...(originalId ? { inReplyTo: originalId } : {}),
    references: [...(asMessageIds(header('references') ?? '') ?? []), ...(originalId ? [originalId] : [])],
    domain: network.domain,
    date: now,
  });
}

// RFC 5230 §4.6: no answer to bounces (empty sender), mailer daemons and list owners or request
// addresses, nor to the inbox itself.
function isAnswerableSender(sender: string, own: string): boolean {
  if (!sender || !sender.includes('@') || sender === own.toLowerCase()) return false;
  const local = sender.slice(0, sender.lastIndexOf('@'));
  return !/^(mailer-daemon|postmaster|listserv|majordomo|owner-.*|.*-request|.*-owner)$/.test(local);
}

// RFC 3834 §2 and §5: Auto-Submitted other than "no", list headers and bulk precedence mark mail
// that no person will read an answer to.
function isAutomated(headers: RawHeader[]): boolean {
  return headers.some(({ name, value }) => {
    const key = name.toLowerCase();
    if (key === 'auto-submitted') return value.trim().toLowerCase().split(/[;\s]/)[0] !== 'no';
    if (key === 'precedence') return /^(bulk|list|junk)$/i.test(value.trim());
    return key === 'list-id' || key.startsWith('list-');
  });
}

function isAddressedTo(address: string, headers: RawHeader[]): boolean {
  const wanted = address.toLowerCase();
  return headers
    .filter((header) => /^(resent-)?(to|cc|bcc)$/i.test(header.name))
    .some((header) => asAddresses(header.value).some((entry) => entry.email.toLowerCase() === wanted));
}
