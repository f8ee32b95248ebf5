import PostalMime from 'postal-mime';
import { SMTPServer, type SMTPServerAddress, type SMTPServerError } from 'smtp-server';
import type { BackendContext, OutboxEntry } from '../mail-backend.js';
import type { LmtpResult } from './lmtp-client.js';

/** What the submission server needs from the backend around it. */
export interface SubmissionSmtpOptions {
  /** The sandbox's own mail domain: its recipients are delivered, all others go to the outbox. */
  domain: string;
  isLocalInbox(address: string): boolean;
  deliverLocal(from: string, recipients: string[], raw: Buffer): Promise<LmtpResult>;
  recordOutbox(entry: OutboxEntry): void;
  /** Signs what an inbox sends and stamps the copies for other inboxes with the verdict. */
  ownMail: BackendContext['ownMail'];
  log: (line: string) => void;
}

/** The running submission server: its loopback port and its stop. */
export interface SubmissionSmtpServer {
  port: number;
  close(): Promise<void>;
}

/**
 * An SMTP reply that Cyrus 3.6 maps to a JMAP SetError. This server does not advertise
 * ENHANCEDSTATUSCODES (smtp-server would prefix its own default code, e.g. 5.1.1 for every 550),
 * so Cyrus's smtpclient reads the basic code: 421/451/554 → the `[jmapError:NAME]` tag becomes
 * `notCreated {type: NAME}`; 553 → invalidRecipients; 550 → tooManyRecipients (measured, and
 * imap/smtpclient.c expect_code_cb).
 */
function smtpError(code: number, text: string): SMTPServerError {
  const error: SMTPServerError = new Error(text);
  error.responseCode = code;
  return error;
}

/** The relay's message size limit, advertised as SIZE; Cyrus turns a larger message into tooLarge. */
const maxMessageBytes = 50 * 1024 * 1024;

const sameAddress = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The SMTP server Cyrus's EmailSubmission talks to (smtp_host). It stands in for the live
 * service's outbound relay, which refuses a From that is not the inbox's own address
 * (spec §1 fact 3) — Cyrus itself never checks From.
 */
export async function startSubmissionSmtpServer(options: SubmissionSmtpOptions): Promise<SubmissionSmtpServer> {
  // An inbox on a custom domain is local too: the service hosts it.
  const isLocal = (address: string): boolean =>
    sameAddress(address.slice(address.lastIndexOf('@') + 1), options.domain) || options.isLocalInbox(address);
  const server = new SMTPServer({
    // AUTH must be advertised for Cyrus to put `AUTH=<user id>` on MAIL FROM; Cyrus itself never
    // authenticates (smtp_host ".../noauth"), hence authOptional.
    authOptional: true,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    hideENHANCEDSTATUSCODES: true,
    // Advertising SIZE makes Cyrus read the EHLO extensions before MAIL FROM. Otherwise it does so
    // only after a refusal, and that second EHLO overwrites the reply text it takes the
    // [jmapError:NAME] tag from (the SetError would read forbiddenToSend, "AUTH"; smtpclient.c).
    size: maxMessageBytes,
    logger: false,
    // smtp-server would look the client's name up in the network's DNS; the sandbox asks none.
    disableReverseLookup: true,
    onAuth(_auth, _session, callback) {
      callback(smtpError(535, '5.7.8 authentication is not used on this relay'));
    },
    onMailFrom(address: SMTPServerAddress, _session, callback) {
      const authUser = address.args ? address.args['AUTH'] : undefined;
      // Cyrus's own automatic mail (a Sieve vacation reply from lmtpd) comes with the empty sender
      // of RFC 3834 §3.3, AUTH naming the inbox it speaks for; DATA checks it is one.
      if (address.address === '') return callback();
      if (typeof authUser !== 'string' || authUser === '<>') {
        return callback(
          smtpError(554, '[jmapError:forbiddenToSend] This relay only takes submissions of an authenticated inbox.'),
        );
      }
      if (!sameAddress(authUser, address.address)) {
        return callback(
          smtpError(
            554,
            `[jmapError:forbiddenFrom] The sender ${address.address} is not this inbox's own address ${authUser}; send From the inbox's address.`,
          ),
        );
      }
      callback();
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (isLocal(address.address) && !options.isLocalInbox(address.address)) {
        return callback(smtpError(553, `<${address.address}>: no such inbox on this service`));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () => {
        const raw = Buffer.concat(chunks);
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        relay(raw, mailFrom, recipients).then(
          () => callback(),
          (error: unknown) => callback(error instanceof Error ? error : smtpError(451, 'delivery failed')),
        );
      });
    },
  });

  // DATA is answered only after local delivery finished, so the recipient's Email/query sees the
  // message as soon as the sender's JMAP response is back (cyrus.md).
  async function relay(raw: Buffer, mailFrom: string, recipients: string[]): Promise<void> {
    const parsed = await PostalMime.parse(raw);
    const headerFrom = parsed.from && 'address' in parsed.from ? parsed.from.address : undefined;
    if (mailFrom === '') {
      // RFC 3834 §5: an automatic reply says so in Auto-Submitted, and it speaks for one of our inboxes.
      const autoSubmitted =
        parsed.headers
          .find((header) => header.key === 'auto-submitted')
          ?.value.trim()
          .toLowerCase() ?? 'no';
      if (
        autoSubmitted.startsWith('no') ||
        headerFrom === undefined ||
        !isLocal(headerFrom) ||
        !options.isLocalInbox(headerFrom)
      ) {
        throw smtpError(
          554,
          "[jmapError:forbiddenToSend] Only automatic replies of this service's inboxes may use the empty sender.",
        );
      }
    } else if (headerFrom !== undefined && !sameAddress(headerFrom, mailFrom)) {
      throw smtpError(
        554,
        `[jmapError:forbiddenFrom] The From address ${headerFrom} is not this inbox's own address ${mailFrom}; send From the inbox's address.`,
      );
    }
    const local = recipients.filter(isLocal);
    const external = recipients.filter((r) => !isLocal(r));
    // An automatic reply has no envelope sender: it is signed for the inbox its From names.
    const { signed, stamped } = await options.ownMail.authenticate(raw, mailFrom || (headerFrom ?? ''));
    if (local.length > 0) {
      const result = await options.deliverLocal(mailFrom, local, stamped);
      if (result.refused.length > 0) {
        throw smtpError(
          451,
          `local delivery failed: ${result.refused.map((r) => `${r.recipient} ${r.reply}`).join('; ')}`,
        );
      }
    }
    if (external.length > 0) {
      options.recordOutbox({
        at: new Date().toISOString(),
        from: mailFrom,
        to: external,
        subject: parsed.subject ?? '',
        ...(parsed.messageId ? { messageId: parsed.messageId } : {}),
        size: signed.length,
        rawBase64: signed.toString('base64'),
      });
    }
    options.log(`cyrus smtp: ${mailFrom || '<>'} → ${local.length} local, ${external.length} external`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.on('error', (error: Error) => options.log(`cyrus smtp: ${error.message}`));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
