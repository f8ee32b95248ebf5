import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import { messageProblem } from '../../mime/message-problem.js';
import { ParsedEmail } from '../../mime/parsed-email.js';
import { jmapLimits } from '../../protocol/jmap-limits.js';
import { threadKeys } from '../../store/inbox-account.js';
import {
  checkObjectLimit,
  checkProperties,
  parseArgs,
  resolveCreationId,
  type MethodDefinition,
} from '../method-context.js';
import { bodyFetchArgs, isKnownEmailProperty, renderEmail, viewOptionsOf } from './email-view.js';

const parseArgsShape = z.object({ accountId: z.string().optional(), blobIds: z.array(z.string()), ...bodyFetchArgs });

/** Email/parse's default properties (RFC 8621 §4.9): the message's own, none of the store's. */
const defaultParseProperties = [
  'messageId',
  'inReplyTo',
  'references',
  'sender',
  'from',
  'to',
  'cc',
  'bcc',
  'replyTo',
  'subject',
  'sentAt',
  'hasAttachment',
  'preview',
  'bodyValues',
  'textBody',
  'htmlBody',
  'attachments',
];

/**
 * Email/parse (RFC 8621 §4.9): any blob of the account (an upload, a stored message, an attached
 * .eml) read as an Email without storing it. id, mailboxIds, keywords and receivedAt are null;
 * threadId is the thread the message would join, or null when it would start its own.
 */
export const emailParseMethods: Record<string, MethodDefinition> = {
  'Email/parse': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(parseArgsShape, args);
      checkProperties(input.properties, [], isKnownEmailProperty);
      checkObjectLimit(input.blobIds.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const { account } = ctx;
      const parsed: Record<string, unknown> = {};
      const notParsable: string[] = [];
      const notFound: string[] = [];
      for (const requested of input.blobIds) {
        const blobId = resolveCreationId(requested, ctx) ?? requested;
        const blob = await account.blobs.resolve(blobId);
        if (!blob) {
          notFound.push(requested);
          continue;
        }
        if (messageProblem(blob.data)) {
          notParsable.push(requested);
          continue;
        }
        const message = await account.blobs.parsed(blobId, blob.data);
        parsed[requested] = await renderEmail(
          {
            metadata: {
              id: null,
              blobId,
              threadId: account.relatedThread(threadKeys(message)) ?? null,
              mailboxIds: null,
              keywords: null,
              size: blob.data.length,
              receivedAt: null,
            },
            blobId,
            read: async () => new ParsedEmail(message),
          },
          viewOptionsOf(input, defaultParseProperties),
        );
      }
      const orNull = (list: string[]): string[] | null => (list.length ? list : null);
      return {
        response: {
          accountId: account.address,
          parsed: Object.keys(parsed).length ? parsed : null,
          notParsable: orNull(notParsable),
          notFound: orNull(notFound),
        },
      };
    },
  },
};
