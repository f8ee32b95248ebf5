import { formatAddresses, oneLine } from './mail-views.js';
import { bodyTextOf } from './message-text.js';
import { fenceUntrusted } from './untrusted-text.js';

/** One message as read_message and fetch show it: headers as data, the body fenced. */
export interface MessageView {
  headers: Record<string, unknown>;
  /** The body inside an untrusted-content fence made for this call. */
  fencedBody: string;
}

/** The view of an Email/get object fetched by readCalls. */
export async function viewMessage(email: Record<string, unknown>): Promise<MessageView> {
  const { text, isTruncated } = await bodyTextOf(email);
  const keywords = (email['keywords'] ?? {}) as Record<string, unknown>;
  const attachments = (Array.isArray(email['attachments']) ? email['attachments'] : []) as Array<
    Record<string, unknown>
  >;
  return {
    headers: {
      id: email['id'],
      thread_id: email['threadId'],
      message_id: Array.isArray(email['messageId']) ? email['messageId'][0] : undefined,
      from: formatAddresses(email['from']).join(', '),
      reply_to: formatAddresses(email['replyTo']),
      to: formatAddresses(email['to']),
      cc: formatAddresses(email['cc']),
      subject: oneLine(email['subject']),
      sent_at: email['sentAt'],
      received_at: email['receivedAt'],
      unread: keywords['$seen'] !== true,
      attachments: attachments.map((part) => ({
        name: oneLine(part['name']) || null,
        type: part['type'],
        size: part['size'],
        blob_id: part['blobId'],
      })),
      ...(isTruncated ? { body_truncated: true } : {}),
    },
    fencedBody: fenceUntrusted(text === '' ? '(no text body)' : text, 'message body'),
  };
}
