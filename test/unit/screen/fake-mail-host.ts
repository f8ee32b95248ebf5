import type { Account, InboxIdentity } from '../../../src/auth/account-registry.js';
import { resolveConfig, type Config } from '../../../src/config.js';
import type { Invocation, JmapRequest, JmapResponse, JmapSessionInfo } from '../../../src/jmap/jmap-types.js';
import { MailboxError } from '../../../src/errors.js';
import type { LoadedLayer } from '../../../src/policy/policy-layers.js';
import type { PolicyFile, PolicyLayer } from '../../../src/policy/policy-schema.js';
import { ReceiveScreen, type ReceiveScreenOptions } from '../../../src/screen/receive-screen.js';

/**
 * What the receive screen's unit tests stand on: a mailbox held in memory that answers the read-only
 * methods the screen looks things up with (Email/query, Email/get, Email/parse, SearchSnippet/get,
 * with back-references), an account that says who the inbox is, policy layers built in place, and
 * a screen over them.
 */

export const authservId = 'agent-mailbox.test';
export const inboxAddress = 'me@agent-mailbox.test';

export interface FakeMessage {
  id: string;
  from: string | string[];
  name?: string;
  /** The Sender field's address; none by default. */
  sender?: string;
  /** Authentication-Results fields, top first; a DMARC pass of the service by default. */
  results?: string[];
  /** Blob ids of its parts (the message's own blob is `blob-<id>`). */
  parts?: string[];
  /** Its body, for a `text` filter. */
  text?: string;
}

/** The service's own verdict on a message from `address`. */
export const dmarc = (result: string, address: string): string =>
  ` ${authservId}; spf=pass smtp.mailfrom=${address}; dmarc=${result} header.from=${address.replace(/^.*@/, '')}`;

/** The Email object of a message, every property the tests ask for. */
export function emailOf(message: FakeMessage): Record<string, unknown> {
  const from = Array.isArray(message.from) ? message.from : [message.from];
  return {
    id: message.id,
    blobId: `blob-${message.id}`,
    threadId: `thread-${message.id}`,
    subject: `subject ${message.id}`,
    from: from.map((email) => ({ name: message.name ?? null, email })),
    sender: message.sender === undefined ? null : [{ name: null, email: message.sender }],
    'header:Authentication-Results:asRaw:all':
      message.results ?? from.map((address) => dmarc('pass', address)).slice(0, 1),
    bodyStructure: {
      type: 'multipart/mixed',
      subParts: [
        { type: 'text/plain', blobId: `text-${message.id}` },
        ...(message.parts ?? []).map((blobId) => ({
          type: 'multipart/related',
          subParts: [{ type: 'image/png', blobId }],
        })),
      ],
    },
  };
}

function pick(email: Record<string, unknown>, properties: unknown): Record<string, unknown> {
  if (!Array.isArray(properties)) return { ...email };
  return Object.fromEntries([
    ['id', email.id],
    ...properties.filter((p): p is string => typeof p === 'string' && p in email).map((p) => [p, email[p]]),
  ]);
}

export interface FakeMailHost {
  lookup(request: JmapRequest): Promise<JmapResponse>;
  /** Every request the screen sent, in order. */
  requests: JmapRequest[];
  /** Every method call of those requests, in order. */
  calls(): Invocation[];
  messages: FakeMessage[];
}

/** A mailbox of `messages`, newest first, answering like a JMAP server would. */
export function fakeMailHost(
  messages: FakeMessage[],
  options: { failWith?: string; maxLimit?: number } = {},
): FakeMailHost {
  const requests: JmapRequest[] = [];
  const byId = new Map(messages.map((m) => [m.id, emailOf(m)]));
  const byBlob = new Map(messages.map((m) => [`blob-${m.id}`, emailOf(m)]));
  const lookup = async (request: JmapRequest): Promise<JmapResponse> => {
    requests.push(structuredClone(request));
    const answered = new Map<string, Record<string, unknown>>();
    const idsFrom = (args: Record<string, unknown>, key: string): string[] => {
      const reference = args[`#${key}`] as { resultOf: string; path: string } | undefined;
      if (reference) return (answered.get(reference.resultOf)?.ids as string[] | undefined) ?? [];
      return (args[key] as string[] | undefined) ?? [];
    };
    const methodResponses = request.methodCalls.map(([name, args, callId]): Invocation => {
      if (options.failWith) return ['error', { type: options.failWith }, callId];
      let answer: Record<string, unknown>;
      if (name === 'Email/query') {
        const text = (args.filter as { text?: string } | undefined)?.text;
        const matches = messages.filter((m) => text === undefined || (m.text ?? '').includes(text)).map((m) => m.id);
        let position = typeof args.position === 'number' ? args.position : 0;
        if (typeof args.anchor === 'string') {
          if (!matches.includes(args.anchor)) return ['error', { type: 'anchorNotFound' }, callId];
          position = Math.max(
            0,
            matches.indexOf(args.anchor) + (typeof args.anchorOffset === 'number' ? args.anchorOffset : 0),
          );
        } else if (position < 0) position = Math.max(0, matches.length + position);
        const limit = Math.min(typeof args.limit === 'number' ? args.limit : Infinity, options.maxLimit ?? Infinity);
        answer = {
          ids: matches.slice(position, position + limit),
          position,
          ...(args.calculateTotal === true ? { total: matches.length } : {}),
          ...(options.maxLimit !== undefined && limit === options.maxLimit ? { limit } : {}),
        };
      } else if (name === 'Email/get') {
        const ids = idsFrom(args, 'ids');
        answer = {
          list: ids.flatMap((id) => (byId.has(id) ? [pick(byId.get(id)!, args.properties)] : [])),
          notFound: ids.filter((id) => !byId.has(id)),
        };
      } else if (name === 'SearchSnippet/get') {
        const ids = idsFrom(args, 'emailIds');
        answer = {
          list: ids.filter((id) => byId.has(id)).map((emailId) => ({ emailId, subject: `subject ${emailId}` })),
          notFound: ids.filter((id) => !byId.has(id)),
        };
      } else if (name === 'Email/parse') {
        const blobIds = (args.blobIds as string[] | undefined) ?? [];
        const found = blobIds.filter((id) => byBlob.has(id));
        answer = {
          parsed: Object.fromEntries(found.map((id) => [id, pick(byBlob.get(id)!, args.properties)])),
          notFound: blobIds.filter((id) => !byBlob.has(id)),
        };
      } else return ['error', { type: 'unknownMethod' }, callId];
      answered.set(callId, answer);
      return [name, answer, callId];
    });
    return { methodResponses };
  };
  return { lookup, requests, messages, calls: () => requests.flatMap((r) => r.methodCalls) };
}

/** A policy layer holding these receive rules. */
export function receiveLayer(receive: NonNullable<PolicyFile['receive']>, layer: PolicyLayer = 'inbox'): LoadedLayer {
  return { layer, path: `/policies/${layer}.json`, present: true, policy: { version: 1, receive } };
}

/** The session the screen reads its account id and limits from. */
export function sessionOf(limits: JmapSessionInfo['limits'] = {}, accountId = 'acc-1'): () => Promise<JmapSessionInfo> {
  const info: JmapSessionInfo = {
    sessionUrl: 'http://127.0.0.1/s',
    apiUrl: 'http://127.0.0.1/api',
    uploadUrl: 'http://127.0.0.1/up',
    downloadUrl: 'http://127.0.0.1/down',
    accountId,
    capabilities: [],
    accountCapabilities: [],
    limits,
    mailboxIdsByRole: {},
    fetchedAt: '2026-11-25T00:00:00Z',
  };
  return async () => info;
}

const unused = (): Promise<never> => Promise.reject(new Error('the receive screen does not use this'));

/** An account directory's view, as the screen asks it: its config and which inbox it is. */
export function fakeAccount(
  options: { dir?: string; identity?: Partial<InboxIdentity>; flags?: Record<string, string>; home?: string } = {},
): Account & { configReads: () => number } {
  const dir = options.dir ?? '/nonexistent/inbox';
  let reads = 0;
  const config: Config = resolveConfig({
    flags: { inboxDomain: authservId, ...options.flags },
    env: { HOME: options.home ?? '/nonexistent/home' },
  });
  const identity: InboxIdentity = {
    kind: 'pow',
    inboxId: 'me',
    address: inboxAddress,
    stateDir: dir,
    ...options.identity,
  };
  return {
    dir,
    config: async () => {
      reads += 1;
      return config;
    },
    inbox: async () => identity,
    register: unused,
    capability: unused,
    invalidateCapability: () => undefined,
    credentials: unused,
    readState: unused,
    updateState: unused,
    revealApiKey: unused,
    listInboxes: unused,
    configReads: () => reads,
  };
}

/** Thirty messages, newest first: every third one comes from spam.test. */
export const mailbox: FakeMessage[] = Array.from({ length: 30 }, (_, i) => ({
  id: `M${i}`,
  from: i % 3 === 0 ? `offers${i}@spam.test` : `friend${i}@fine.test`,
}));

/** A screen over `host` on a fresh account, under an inbox layer that blocks spam.test unless told otherwise. */
export function screenOf(host: FakeMailHost, extra: Partial<ReceiveScreenOptions> = {}): ReceiveScreen {
  return new ReceiveScreen({
    account: fakeAccount(),
    session: sessionOf(),
    lookup: host.lookup,
    layers: async () => [receiveLayer({ block: ['spam.test'] })],
    ...extra,
  });
}

/** The MailboxError a call fails with (a call that succeeds fails the test). */
export const failure = (promise: Promise<unknown>): Promise<MailboxError> =>
  promise.then(
    () => Promise.reject(new Error('it did not fail')),
    (error: unknown) => error as MailboxError,
  );
