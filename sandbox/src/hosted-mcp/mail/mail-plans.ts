import { jmapCapabilities } from '../../wire-constants.js';
import type { MethodCall } from './mail-store-client.js';
import { summaryProperties } from './mail-views.js';

/**
 * The JMAP method calls of the hosted tools' flows, as plain data. The tools run them; run_preset's
 * dry run shows them with placeholders in place of the ids a real run looks up first, so what a
 * dry run prints is what a real run sends.
 */

/** The using lists: reading, and sending (EmailSubmission and Identity need the submission URN). */
export const readUsing = [jmapCapabilities.core, jmapCapabilities.mail] as const;
export const sendUsing = [jmapCapabilities.core, jmapCapabilities.mail, jmapCapabilities.submission] as const;

/** Where mail goes in one inbox: its role mailboxes and the identity it sends as. */
export interface MailPlaces {
  accountId: string;
  address: string;
  inboxId: string;
  draftsId: string;
  sentId: string;
  identityId: string;
}

/** The same places as `$NAME` placeholders, for a dry run that looks nothing up. */
export const placeholderPlaces: MailPlaces = {
  accountId: '$ACCOUNT_ID',
  address: '$INBOX',
  inboxId: '$INBOX_MAILBOX_ID',
  draftsId: '$DRAFTS_MAILBOX_ID',
  sentId: '$SENT_MAILBOX_ID',
  identityId: '$IDENTITY_ID',
};

/** Finds the role mailboxes and, for a send, the identities. */
export function discoveryCalls(accountId: string, withIdentities: boolean): MethodCall[] {
  return [
    ['Mailbox/get', { accountId, ids: null, properties: ['id', 'role'] }, 'mailboxes'],
    ...(withIdentities
      ? [['Identity/get', { accountId, ids: null, properties: ['id', 'email'] }, 'identities'] as MethodCall]
      : []),
  ];
}

/** The newest messages matching `filter`, with what a list shows. */
export function listCalls(accountId: string, filter: Record<string, unknown>, limit: number): MethodCall[] {
  return [
    [
      'Email/query',
      { accountId, filter, sort: [{ property: 'receivedAt', isAscending: false }], limit, calculateTotal: true },
      'query',
    ],
    [
      'Email/get',
      {
        accountId,
        '#ids': { resultOf: 'query', name: 'Email/query', path: '/ids' },
        properties: [...summaryProperties],
      },
      'list',
    ],
  ];
}

/** One message's headers, plain-text body (HTML-only mail: its HTML, turned into text later) and attachment list. */
export function readCalls(accountId: string, emailId: string, maxBodyBytes: number): MethodCall[] {
  return [
    [
      'Email/get',
      {
        accountId,
        ids: [emailId],
        properties: [
          'id',
          'threadId',
          'mailboxIds',
          'keywords',
          'messageId',
          'inReplyTo',
          'references',
          'from',
          'sender',
          'replyTo',
          'to',
          'cc',
          'subject',
          'sentAt',
          'receivedAt',
          'size',
          'hasAttachment',
          'textBody',
          'attachments',
          'bodyValues',
          'header:Auto-Submitted:asText',
          'header:Precedence:asText',
          'header:List-Id:asText',
        ],
        bodyProperties: ['partId', 'blobId', 'type', 'name', 'size', 'disposition'],
        fetchTextBodyValues: true,
        maxBodyValueBytes: maxBodyBytes,
      },
      'message',
    ],
  ];
}

/** A message to send: addresses, text, uploaded attachments and, for a reply, its thread headers. */
export interface DraftSpec {
  to: Array<{ name?: string; email: string }>;
  cc: Array<{ name?: string; email: string }>;
  bcc: Array<{ name?: string; email: string }>;
  subject: string;
  body: string;
  attachments: Array<{ blobId: string; type: string; name: string }>;
  inReplyTo?: string[];
  references?: string[];
}

/** Draft in Drafts, submitted, then moved to Sent with $draft cleared (RFC 8621 §7.5 onSuccessUpdateEmail). */
export function sendCalls(places: MailPlaces, draft: DraftSpec): MethodCall[] {
  const email: Record<string, unknown> = {
    mailboxIds: { [places.draftsId]: true },
    keywords: { $draft: true, $seen: true },
    from: [{ email: places.address }],
    to: draft.to,
    subject: draft.subject,
    bodyValues: { body: { value: draft.body } },
    textBody: [{ partId: 'body', type: 'text/plain' }],
  };
  if (draft.cc.length > 0) email['cc'] = draft.cc;
  if (draft.bcc.length > 0) email['bcc'] = draft.bcc;
  if (draft.attachments.length > 0)
    email['attachments'] = draft.attachments.map((file) => ({
      blobId: file.blobId,
      type: file.type,
      name: file.name,
      disposition: 'attachment',
    }));
  if (draft.inReplyTo) email['inReplyTo'] = draft.inReplyTo;
  if (draft.references) email['references'] = draft.references;
  return [
    ['Email/set', { accountId: places.accountId, create: { draft: email } }, 'draft'],
    [
      'EmailSubmission/set',
      {
        accountId: places.accountId,
        create: { send: { emailId: '#draft', identityId: places.identityId } },
        onSuccessUpdateEmail: {
          '#send': {
            [`mailboxIds/${places.draftsId}`]: null,
            [`mailboxIds/${places.sentId}`]: true,
            'keywords/$draft': null,
          },
        },
      },
      'submit',
    ],
  ];
}
