import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { z } from 'zod';
import { SandboxError } from '../auth/sandbox-error.js';
import type { BackendContext, MailBackend, OutboxEntry } from '../mail-backend.js';
import { cyrusDataPaths, openDataDirToCyrus, readCyrusAccounts, writeCyrusAccounts } from './cyrus-accounts-file.js';
import { cyrusUnavailableReason } from './cyrus-availability.js';
import { startCyrusInstance, type CyrusInstance } from './cyrus-instance.js';
import { loginOverImap } from './imap-login.js';
import { createJmapGateway } from './jmap-gateway.js';
import { deliverOverLmtp } from './lmtp-client.js';
import { pollUntil } from './poll-until.js';
import { createSaslUser } from './sasl-user.js';
import { startSubmissionSmtpServer } from './submission-smtp-server.js';

/**
 * The sandbox's mail store as a real Cyrus IMAP 3.6 (the live service's store): a private
 * instance, the SMTP relay Cyrus submits to, and a JMAP gateway in front of Cyrus's httpd.
 * Without a data dir the instance is built in a temp dir and removed on close; with one it is kept
 * in `<dataDir>/mail/cyrus`, with the inboxes' SASL passwords next to it, so inboxes and mail
 * survive a restart.
 */
export async function createCyrusBackend(ctx: BackendContext): Promise<MailBackend> {
  const unavailable = cyrusUnavailableReason(process.getuid?.() === 0);
  if (unavailable) {
    throw new SandboxError(
      `The Cyrus backend cannot start on this machine. ${unavailable}`,
      'Install Cyrus with `bash test/cyrus/install-cyrus.sh` (as root), or start the sandbox with --backend embedded.',
    );
  }
  const kept = ctx.dataDir === undefined ? undefined : cyrusDataPaths(ctx.dataDir);
  if (ctx.dataDir !== undefined) await openDataDirToCyrus(ctx.dataDir);
  const passwords = kept ? await readCyrusAccounts(kept.accountsFile) : new Map<string, string>();
  const sent: OutboxEntry[] = [];
  const key = (address: string): string => address.trim().toLowerCase();
  let instance: CyrusInstance | undefined;
  const lmtpPort = (): number => {
    if (!instance) throw new Error('Cyrus is not running');
    return instance.ports.lmtp;
  };

  // The relay must listen before Cyrus serves a session, or accounts lack the submission
  // capability (cyrus.md).
  const smtp = await startSubmissionSmtpServer({
    domain: ctx.domain,
    isLocalInbox: (address) => passwords.has(key(address)),
    deliverLocal: (from, recipients, raw) => deliverOverLmtp(lmtpPort(), from, recipients, raw),
    recordOutbox: (entry) => void sent.push(entry),
    ownMail: ctx.ownMail,
    log: ctx.log,
  });
  try {
    instance = await startCyrusInstance({ smtpPort: smtp.port, log: ctx.log, ...(kept ? { baseDir: kept.base } : {}) });
  } catch (error) {
    await smtp.close();
    throw new SandboxError(
      `Cyrus IMAP failed to start: ${error instanceof Error ? error.message : String(error)}`,
      'Check that the Cyrus packages are complete (bash test/cyrus/install-cyrus.sh, as root), then retry.',
      undefined,
      { cause: error },
    );
  }
  const running = instance;

  const handle = createJmapGateway({
    cyrusHttpPort: running.ports.http,
    verifyCapability: ctx.verifyCapability,
    passwordOf: (address) => passwords.get(key(address)),
    publicApiUrl: ctx.publicApiUrl,
    outbox: () => [...sent],
    log: ctx.log,
  });

  let closing: Promise<void> | undefined;
  return {
    kind: 'cyrus',
    handle,
    async createInbox(address) {
      const user = key(address);
      if (passwords.has(user)) return;
      const password = randomBytes(18).toString('base64url');
      try {
        await createSaslUser(running.layout.sasldb, user, password, running.ids);
        // A JMAP login alone answers accountNotFound: the first IMAP login creates the mailboxes.
        await loginOverImap(running.ports.imap, user, password);
        await pollUntil(`the Cyrus account ${user}`, () => hasInboxMailbox(running.ports.http, user, password), 10_000);
      } catch (error) {
        const tail = running.logTail(15);
        throw new Error(
          `creating ${user} in Cyrus failed: ${error instanceof Error ? error.message : String(error)}${tail ? `\nCyrus log:\n${tail}` : ''}`,
          { cause: error },
        );
      }
      passwords.set(user, password);
      if (kept) await writeCyrusAccounts(kept.accountsFile, passwords);
    },
    async deliverInbound(raw, envelope) {
      const local = envelope.to.filter((to) => passwords.has(key(to)));
      const unknown = envelope.to.filter((to) => !passwords.has(key(to)));
      if (local.length === 0) return { accepted: [], rejected: unknown };
      const result = await deliverOverLmtp(running.ports.lmtp, envelope.from, local.map(key), raw);
      const delivered = new Set(result.delivered);
      return {
        accepted: local.filter((to) => delivered.has(key(to))),
        rejected: [...unknown, ...local.filter((to) => !delivered.has(key(to)))],
      };
    },
    outbox: async () => [...sent],
    close: () =>
      (closing ??= (async () => {
        await running.stop();
        await smtp.close();
      })()),
  };
}

/** Just enough of a JMAP response to see the Mailbox/query result (RFC 8620 §3.4). */
const mailboxQueryResponse = z.object({
  methodResponses: z.array(z.tuple([z.string(), z.looseObject({ ids: z.array(z.string()).optional() }), z.string()])),
});

/** True once Cyrus serves the account over JMAP with its Inbox (the login's autocreate is done). */
function hasInboxMailbox(port: number, user: string, password: string): Promise<true | undefined> {
  const body = JSON.stringify({
    using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
    methodCalls: [['Mailbox/query', { accountId: user, filter: { role: 'inbox' } }, 'q']],
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/jmap/',
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const parsed = mailboxQueryResponse.safeParse(json);
          const [first] = parsed.success ? parsed.data.methodResponses : [];
          resolve(
            res.statusCode === 200 && first?.[0] === 'Mailbox/query' && (first[1].ids?.length ?? 0) > 0
              ? true
              : undefined,
          );
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
