import type { InboxAccount } from './inbox-account.js';
import type { EmailRecord } from './records.js';

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

/**
 * Puts a copy into a local inbox's Inbox, as an MTA would: Bcc removed (RFC 5322 §3.6.3: blind
 * recipients are not disclosed), a Received trace field added (RFC 5321 §4.4), fresh id, unread.
 */
export async function deliverLocal(recipient: InboxAccount, raw: Buffer, via: string, domain: string): Promise<EmailRecord> {
  const received = `Received: from ${via} by ${domain} (agent-mailbox sandbox) for <${recipient.address}>; ${new Date().toUTCString()}\r\n`;
  const copy = Buffer.concat([Buffer.from(received, 'latin1'), stripHeader(raw, 'bcc')]);
  return recipient.addEmail(copy, { mailboxIds: { [recipient.mailboxByRole('inbox').id]: true }, keywords: {} });
}
