import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { BackendContext, MailBackend, OutboxEntry } from '../mail-backend.js';
import { AccountFiles, appendJsonLine, readAccountIndexes } from './store/account-files.js';
import { deliverLocal } from './store/deliver-message.js';
import { InboxAccount, type ParseCacheOptions } from './store/inbox-account.js';
import { createJmapHttpHandler } from './http/jmap-http-handler.js';
import type { MailNetwork } from './store/mail-network.js';
import { PushHub } from './http/push-hub.js';

/** Options of the embedded store that only tests set. */
export interface EmbeddedOptions {
  /** The store's clock (receivedAt, vacation windows and reply periods). */
  now?: () => Date;
  /** How each inbox parses its messages and how many bytes of them it keeps parsed. */
  parseCache?: ParseCacheOptions;
}

const outboxEntry = z.object({
  at: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  messageId: z.string().optional(),
  size: z.number(),
  rawBase64: z.string(),
});

/**
 * The sandbox's own mail store and JMAP host. In memory by default; with a data
 * directory every inbox keeps its messages as .eml files plus a JSON index (see AccountFiles),
 * and outgoing mail to other domains is appended to `<dataDir>/outbox.jsonl`.
 */
export async function createEmbeddedBackend(ctx: BackendContext, options: EmbeddedOptions = {}): Promise<MailBackend> {
  const accounts = new Map<string, InboxAccount>();
  const { dataDir } = ctx;
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (const index of dataDir ? readAccountIndexes(dataDir) : []) {
    accounts.set(
      index.address.toLowerCase(),
      new InboxAccount(index.address, new AccountFiles(dataDir as string, index.address), index, options.parseCache),
    );
  }
  const outboxFile = dataDir ? join(dataDir, 'outbox.jsonl') : undefined;
  const outbox: OutboxEntry[] = outboxFile && existsSync(outboxFile) ? readOutbox(outboxFile) : [];

  const network: MailNetwork = {
    domain: ctx.domain,
    account: (address) => accounts.get(address.toLowerCase()),
    ownMail: ctx.ownMail,
    recordOutbox(entry) {
      outbox.push(entry);
      if (outboxFile) appendJsonLine(outboxFile, entry);
      ctx.log(`sandbox outbox: ${entry.from || '<>'} -> ${entry.to.join(', ')} "${entry.subject}"`);
    },
    now: options.now ?? (() => new Date()),
  };

  const push = new PushHub();
  // One job at a time: a JMAP request may await between reading and writing the store, and
  // interleaving two of them could lose an update. A sandbox never needs the parallelism.
  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(job: () => Promise<T>): Promise<T> => {
    const run = queue.then(job).finally(() => {
      for (const account of accounts.values()) account.flush();
      push.publish((address) => accounts.get(address.toLowerCase()));
    });
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    kind: 'embedded',
    handle: createJmapHttpHandler({
      network,
      verifyCapability: (bearer) => ctx.verifyCapability(bearer),
      publicApiUrl: () => ctx.publicApiUrl(),
      log: ctx.log,
      outbox: () => [...outbox],
      serialize,
      push,
    }),
    createInbox: (address) =>
      serialize(async () => {
        const key = address.toLowerCase();
        if (accounts.has(key)) return;
        accounts.set(
          key,
          new InboxAccount(
            address,
            dataDir ? new AccountFiles(dataDir, address) : undefined,
            undefined,
            options.parseCache,
          ),
        );
      }),
    deliverInbound: (raw, envelope) =>
      serialize(async () => {
        const accepted: string[] = [];
        const rejected: string[] = [];
        for (const recipient of new Set(envelope.to.map((address) => address.toLowerCase()))) {
          const target = accounts.get(recipient);
          if (!target) {
            rejected.push(recipient);
            continue;
          }
          await deliverLocal(network, target, raw, {
            envelopeFrom: envelope.from,
            via: `${envelope.from || 'unknown'} (smtp)`,
          });
          accepted.push(recipient);
        }
        return { accepted, rejected };
      }),
    outbox: async () => [...outbox],
    close: async () => {
      await serialize(async () => undefined);
    },
  };
}

function readOutbox(file: string): OutboxEntry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const entry = outboxEntry.parse(JSON.parse(line));
      return { ...entry, ...(entry.messageId === undefined ? {} : { messageId: entry.messageId }) };
    });
}
