import { asAddresses, asDate, asMessageIds, asText, type EmailAddress } from './header-forms.js';
import { plainText, preview, splitBody, type BodyLists } from './body-parts.js';
import type { ParsedMessage, RawHeader } from './parse-message.js';

/** Derived, decoded facts of one message used by Email/get, Email/query and SearchSnippet/get. */
export interface EmailFacts {
  headers: RawHeader[];
  subject: string | null;
  sentAt: string | null;
  messageId: string[] | null;
  inReplyTo: string[] | null;
  references: string[] | null;
  sender: EmailAddress[] | null;
  from: EmailAddress[] | null;
  to: EmailAddress[] | null;
  cc: EmailAddress[] | null;
  bcc: EmailAddress[] | null;
  replyTo: EmailAddress[] | null;
  body: BodyLists;
  bodyText: string;
  preview: string;
  hasAttachment: boolean;
}

/** Computes the facts of a parsed message; convenience properties follow RFC 8621 §4.1.3. */
export function emailFacts(parsed: ParsedMessage): EmailFacts {
  const last = (name: string): string | undefined =>
    parsed.headers.findLast((header) => header.name.toLowerCase() === name)?.value;
  const addresses = (name: string): EmailAddress[] | null => {
    const value = last(name);
    return value === undefined ? null : asAddresses(value);
  };
  const ids = (name: string): string[] | null => {
    const value = last(name);
    return value === undefined ? null : asMessageIds(value);
  };
  const body = splitBody(parsed.root);
  const subject = last('subject');
  const date = last('date');
  return {
    headers: parsed.headers,
    subject: subject === undefined ? null : asText(subject),
    sentAt: date === undefined ? null : asDate(date),
    messageId: ids('message-id'),
    inReplyTo: ids('in-reply-to'),
    references: ids('references'),
    sender: addresses('sender'),
    from: addresses('from'),
    to: addresses('to'),
    cc: addresses('cc'),
    bcc: addresses('bcc'),
    replyTo: addresses('reply-to'),
    body,
    bodyText: [...new Set([...body.textBody, ...body.htmlBody])]
      .filter((part) => part.type.startsWith('text/'))
      .map(plainText)
      .join('\n'),
    preview: preview(body),
    hasAttachment: body.attachments.some((part) => part.disposition === 'attachment' || part.name !== null),
  };
}

/** Addresses as searchable text: "Name <email>" joined. */
export function addressText(addresses: EmailAddress[] | null): string {
  return (addresses ?? []).map((address) => `${address.name ?? ''} <${address.email}>`).join(', ');
}
