import type { InboxAccount } from './inbox-account.js';
import { utcDate, type MailNetwork } from './mail-network.js';
import type { EmailRecord } from './records.js';
import { vacationReplyTo } from './vacation-responder.js';

/** Removes every instance of a header field (with its folded continuation lines) from a raw message. */
export function stripHeader(raw: Buffer, name: string): Buffer {
  const text = raw.toString('latin1');
  const split = /\r?\n\r?\n/.exec(text);
  const headerEnd = split ? split.index : text.length;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const prefix = `${name.toLowerCase()}:`;
  let isDropping = false;
  const kept = text
    .slice(0, headerEnd)
    .split(/\r?\n/)
    .filter((line) => {
      if (!line.startsWith(' ') && !line.startsWith('\t')) isDropping = line.toLowerCase().startsWith(prefix);
      return !isDropping;
    });
  return Buffer.from(kept.join(eol) + text.slice(headerEnd), 'latin1');
}

/** Who handed a message over: the SMTP envelope sender (empty for bounces and auto-replies) and a trace label. */
export interface Handover {
  envelopeFrom: string;
  via: string;
}

/**
 * Puts a copy into a local inbox's Inbox, as an MTA would: Bcc removed (RFC 5322 §3.6.3: blind
 * recipients are not disclosed), a Received trace field added (RFC 5321 §4.4), fresh id, unread.
 * Then the inbox's vacation response answers, if it is on and the message calls for it.
 */
export async function deliverLocal(
  network: MailNetwork,
  recipient: InboxAccount,
  raw: Buffer,
  handover: Handover,
): Promise<EmailRecord> {
  const now = network.now();
  const received = `Received: from ${handover.via} by ${network.domain} (agent-mailbox sandbox) for <${recipient.address}>; ${now.toUTCString()}\r\n`;
  const copy = Buffer.concat([Buffer.from(received, 'latin1'), stripHeader(raw, 'bcc')]);
  const email = await recipient.addEmail(copy, {
    mailboxIds: { [recipient.mailboxByRole('inbox').id]: true },
    keywords: {},
    receivedAt: utcDate(now),
  });
  const reply = await vacationReplyTo(network, recipient, await recipient.parsed(email.id), handover.envelopeFrom);
  if (reply) {
    // RFC 3834 §3.3: an automatic response goes out with an empty envelope sender, so nothing answers it in turn.
    // It is the inbox's own mail: signed by the service like any other it sends.
    const { signed, stamped } = await network.ownMail.authenticate(reply.raw, recipient.address);
    const isLocalDomain = reply.to.split('@')[1] === network.domain.toLowerCase();
    const local = network.account(reply.to);
    if (local)
      await deliverLocal(network, local, stamped, {
        envelopeFrom: '',
        via: `${recipient.address} (vacation response)`,
      });
    else if (!isLocalDomain) {
      network.recordOutbox({
        at: now.toISOString(),
        from: '',
        to: [reply.to],
        subject: reply.subject,
        messageId: reply.messageId,
        size: signed.length,
        rawBase64: signed.toString('base64'),
      });
    }
  }
  return email;
}
