import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import type { MailAuthority } from './mail-auth/mail-authority.js';

/** What the SMTP listener needs from the rest of the sandbox. */
export interface SmtpListenerOptions {
  port: number;
  domain: string;
  /** Whether the full address is a sandbox inbox. */
  isInbox(address: string): boolean;
  deliver(raw: Buffer, envelope: { from: string; to: string[] }): Promise<{ accepted: string[]; rejected: string[] }>;
  log(line: string): void;
  /** Authenticates each message: SPF, DKIM, DMARC. */
  authority: MailAuthority;
  /** Largest message accepted, in bytes. */
  maxMessageBytes?: number;
}

export interface SmtpListener {
  port: number;
  close(): Promise<void>;
}

const defaultMaxMessageBytes = 25 * 1024 * 1024;

/** An error smtp-server turns into the given reply code. */
function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

/**
 * Mail from the outside world into sandbox inboxes. Loopback only, so no AUTH and no STARTTLS;
 * recipients are checked at RCPT so a sender learns at once which addresses bounce (RFC 5321 §3.3).
 * Each message is authenticated as it streams in and delivered with the service's
 * Authentication-Results on top; a failing verdict is recorded, not refused (docs/sandbox.md,
 * "Sender authentication"), as receivers do unless told to enforce DMARC. A header section that
 * is not RFC 5322 fields (a folded first line, a line without a name and colon) is refused: the
 * service's field goes on top of it, and only well-formed fields keep it whole.
 */
export async function startSmtpListener(options: SmtpListenerOptions): Promise<SmtpListener> {
  const domain = options.domain.toLowerCase();
  const maxBytes = options.maxMessageBytes ?? defaultMaxMessageBytes;
  const server = new SMTPServer({
    name: domain,
    banner: 'agent-mailbox sandbox',
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    size: maxBytes,
    logger: false,
    // close() waits this long for open sessions before cutting them; shutdown should be prompt.
    closeTimeout: 2000,
    // smtp-server would look each client's name up in the network's DNS; the sandbox asks none.
    disableReverseLookup: true,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const recipient = address.address;
      const at = recipient.lastIndexOf('@');
      // Inboxes on custom domains are local too: only what no inbox owns is a relay attempt.
      if (at < 0 || (recipient.slice(at + 1).toLowerCase() !== domain && !options.isInbox(recipient))) {
        return callback(
          smtpError(
            550,
            `5.7.1 <${recipient}>: relay access denied; this sandbox only accepts mail for its own inboxes (@${domain} and its people's custom domains)`,
          ),
        );
      }
      if (!options.isInbox(recipient)) {
        return callback(smtpError(550, `5.1.1 <${recipient}>: no such inbox in this sandbox`));
      }
      callback();
    },
    onData(stream, session, callback) {
      const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
      const check = options.authority.checkInbound({
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs,
        sender: from,
      });
      const chunks: Buffer[] = [];
      let received = 0;
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        // Past the limit nothing is kept: SMTP must still read up to the final "." before it may
        // answer 552 (RFC 5321 §4.2.5), but an oversized message must cost no memory.
        if (received > maxBytes) {
          if (chunks.length) check.abandon();
          chunks.length = 0;
          return;
        }
        chunks.push(chunk);
        if (!check.write(chunk)) {
          stream.pause();
          check.onDrain(() => stream.resume());
        }
      });
      stream.on('error', (error: Error) => {
        check.abandon();
        callback(error);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded || received > maxBytes) {
          check.abandon();
          return callback(smtpError(552, `5.3.4 message exceeds the sandbox's limit of ${maxBytes} bytes`));
        }
        // Inbox addresses are all lowercase (usernamePattern, lowercased domain), so this is their stored spelling.
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase());
        check
          .finish()
          .then(async (outcome) => {
            if (outcome.kind === 'refused') {
              // 5.6.0: the content is at fault (RFC 3463 §3.7); resending it as is will fail again.
              return callback(
                outcome.malformed
                  ? smtpError(
                      550,
                      `5.6.0 ${outcome.reason}; write every header line as "Name: value" and start the message with a field`,
                    )
                  : smtpError(552, `5.3.4 ${outcome.reason}`),
              );
            }
            options.log(
              `sandbox smtp: ${from || '<>'} from ${session.remoteAddress}: ${outcome.results.map((result) => `${result.method}=${result.result}`).join(' ')}`,
            );
            const result = await options.deliver(outcome.stamp(chunks), { from, to });
            options.log(
              `sandbox smtp: delivered to ${result.accepted.join(', ') || 'nobody'}${result.rejected.length ? `, rejected ${result.rejected.join(', ')}` : ''}`,
            );
            if (result.accepted.length === 0)
              return callback(smtpError(550, '5.1.1 no recipient could be delivered to'));
            callback(null, 'queued in the sandbox');
          })
          .catch((error: unknown) => {
            options.log(`sandbox smtp: delivery failed: ${error instanceof Error ? error.message : String(error)}`);
            callback(smtpError(451, '4.3.0 the sandbox could not store the message; try again'));
          });
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error: Error) => options.log(`sandbox smtp: ${error.message}`));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
