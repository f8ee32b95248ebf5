import type { AttachmentInput } from './compose-input.js';
import { parseAddresses } from './compose-input.js';
import { maxBodyBytes } from './inbox-mail.js';
import {
  discoveryCalls,
  listCalls,
  placeholderPlaces,
  readCalls,
  readUsing,
  sendCalls,
  sendUsing,
  type DraftSpec,
} from './mail-plans.js';
import type { MethodCall } from './mail-store-client.js';
import { oneLine } from './mail-views.js';

/** The bundled flows run_preset knows (spec §2.8): listing, sending, replying, with attachments. */
export const presetNames = ['list_inbox', 'send_mail', 'send_mail_attachment', 'reply', 'reply_attachment'] as const;
export type PresetName = (typeof presetNames)[number];

/** The parameters a preset may take (run_preset's inputs besides preset and dry_run). */
export interface PresetParams {
  to?: string[] | undefined;
  cc?: string[] | undefined;
  bcc?: string[] | undefined;
  subject?: string | undefined;
  body?: string | undefined;
  message_id?: string | undefined;
  limit?: number | undefined;
  attachments?: AttachmentInput[] | undefined;
}

/** One step of a dry run: what it does and the requests it would make. */
export interface PlannedStep {
  step: string;
  using?: readonly string[];
  methodCalls?: MethodCall[];
  upload?: Array<{ filename: string; content_type: string; blob: string }>;
}

/** A preset: what it does, what it needs, and its steps with `$NAME` placeholders for what a real run looks up. */
export interface PresetFlow {
  description: string;
  required: Array<keyof PresetParams>;
  sends: boolean;
  plan(params: PresetParams): PlannedStep[];
}

const uploadStep = (params: PresetParams): PlannedStep[] =>
  (params.attachments ?? []).length === 0
    ? []
    : [
        {
          step: "Upload each attachment to the session's uploadUrl (RFC 8620 §6.1)",
          upload: (params.attachments ?? []).map((file, index) => ({
            filename: file.filename,
            content_type: file.content_type ?? 'application/octet-stream',
            blob: `$BLOB_${index + 1}`,
          })),
        },
      ];

const blobsOf = (params: PresetParams): DraftSpec['attachments'] =>
  (params.attachments ?? []).map((file, index) => ({
    blobId: `$BLOB_${index + 1}`,
    type: file.content_type ?? 'application/octet-stream',
    name: file.filename,
  }));

const sendPlan = (params: PresetParams): PlannedStep[] => [
  ...uploadStep(params),
  {
    step: 'Find the Drafts and Sent mailboxes and the identity to send as',
    using: sendUsing,
    methodCalls: discoveryCalls(placeholderPlaces.accountId, true),
  },
  {
    step: 'Create the draft, submit it, move it to Sent',
    using: sendUsing,
    methodCalls: sendCalls(placeholderPlaces, {
      to: parseAddresses(params.to, 'to'),
      cc: parseAddresses(params.cc, 'cc'),
      bcc: parseAddresses(params.bcc, 'bcc'),
      subject: oneLine(params.subject),
      body: params.body ?? '',
      attachments: blobsOf(params),
    }),
  },
];

const replyPlan = (params: PresetParams): PlannedStep[] => [
  {
    step: 'Read the original: its sender, subject, Message-ID and References',
    using: readUsing,
    methodCalls: readCalls(placeholderPlaces.accountId, params.message_id ?? '', maxBodyBytes),
  },
  ...uploadStep(params),
  {
    step: 'Find the Drafts and Sent mailboxes and the identity to send as',
    using: sendUsing,
    methodCalls: discoveryCalls(placeholderPlaces.accountId, true),
  },
  {
    step: "Create the reply to the original's From, submit it, move it to Sent",
    using: sendUsing,
    methodCalls: sendCalls(placeholderPlaces, {
      to: [{ email: '$ORIGINAL_FROM' }],
      cc: [],
      bcc: [],
      subject: 'Re: $ORIGINAL_SUBJECT',
      body: params.body ?? '',
      attachments: blobsOf(params),
      inReplyTo: ['$ORIGINAL_MESSAGE_ID'],
      references: ['$ORIGINAL_REFERENCES', '$ORIGINAL_MESSAGE_ID'],
    }),
  },
];

/** The flow table. */
export const presetFlows: Readonly<Record<PresetName, PresetFlow>> = {
  list_inbox: {
    description: 'The newest messages of the inbox mailbox (limit, default 25).',
    required: [],
    sends: false,
    plan: (params) => [
      {
        step: 'Find the inbox mailbox',
        using: readUsing,
        methodCalls: discoveryCalls(placeholderPlaces.accountId, false),
      },
      {
        step: 'List its newest messages',
        using: readUsing,
        methodCalls: listCalls(
          placeholderPlaces.accountId,
          { inMailbox: placeholderPlaces.inboxId },
          params.limit ?? 25,
        ),
      },
    ],
  },
  send_mail: {
    description: 'Send a plain-text message (to, subject, body; cc, bcc).',
    required: ['to', 'subject', 'body'],
    sends: true,
    plan: sendPlan,
  },
  send_mail_attachment: {
    description: 'Send a plain-text message with attachments (to, subject, body, attachments; cc, bcc).',
    required: ['to', 'subject', 'body', 'attachments'],
    sends: true,
    plan: sendPlan,
  },
  reply: {
    description: 'Reply in thread to a message (message_id, body).',
    required: ['message_id', 'body'],
    sends: true,
    plan: replyPlan,
  },
  reply_attachment: {
    description: 'Reply in thread with attachments (message_id, body, attachments).',
    required: ['message_id', 'body', 'attachments'],
    sends: true,
    plan: replyPlan,
  },
};
