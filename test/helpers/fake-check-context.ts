import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { Config } from '../../src/config.js';
import { Deadline } from '../../src/gate/deadline.js';
import type { CheckContext, GuardNotice, GuardOptions } from '../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse, JmapSessionInfo } from '../../src/jmap/jmap-types.js';

/**
 * A check stage's context without a server: an inbox with its state folder and the user's config
 * folder in a temp directory (policy files written there as the operator would), a scripted mail
 * store for the check's own lookups (Email/get by id, blob downloads), and what the check reported.
 */

export interface FakeStore {
  /** Raw messages already on the server, by Email id. */
  emails: Record<string, string>;
  /** Blob bytes by blob id (an email's raw message is stored under `blob-<id>`). */
  blobs: Record<string, Uint8Array>;
  /** Mail received, as the `known` mode's lookup by sender reads it: from and Authentication-Results fields. */
  received: { from: string; authenticationResults: string[] }[];
}

export interface FakeCheck {
  context: CheckContext;
  root: string;
  stateDir: string;
  userConfigDir: string;
  inbox: string;
  notices: GuardNotice[];
  reads: JmapRequest[];
  store: FakeStore;
  /** Writes the inbox's own policy layer (policy.json in its state folder). */
  inboxPolicy(policy: Record<string, unknown>): Promise<void>;
  /** Writes the user layer (user-policy.json in the user's config folder). */
  userPolicy(policy: Record<string, unknown>): Promise<void>;
}

export interface FakeCheckOptions {
  guard?: GuardOptions;
  isWake?: boolean;
  deadline?: Deadline;
  session?: Partial<JmapSessionInfo> & { mailboxIdsByRole?: Record<string, string> };
  /** Settings of the account's config beyond the user's config folder and the inbox domain. */
  config?: Record<string, unknown>;
  /** The inbox's address as stored with its credentials, and the root folder to use (to share state between contexts). */
  inbox?: string;
  root?: string;
}

async function writePolicy(path: string, dir: string, policy: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify({ version: 1, ...policy }), { mode: 0o600 });
}

export async function fakeCheck(options: FakeCheckOptions = {}): Promise<FakeCheck> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'agent-mailbox-check-')));
  if (options.root === undefined) onTestFinished(() => rm(root, { recursive: true, force: true }));
  const stateDir = join(root, 'inbox');
  const userConfigDir = join(root, 'config');
  const inbox = options.inbox ?? 'ada@agent-mailbox.test';
  const notices: GuardNotice[] = [];
  const reads: JmapRequest[] = [];
  const store: FakeStore = { emails: {}, blobs: {}, received: [] };
  const guard: GuardOptions = { machinePolicyPath: join(root, 'no-machine-policy.json'), ...options.guard };
  const context: CheckContext = {
    credentialsDir: stateDir,
    frontDoor: 'mcp',
    isWake: options.isWake ?? false,
    deadline: options.deadline ?? Deadline.start({ timeoutMs: 30_000 }),
    guard,
    config: async () =>
      ({ userConfigDir, inboxDomain: 'agent-mailbox.test', authservId: '', ...options.config }) as unknown as Config,
    inbox: async () => ({ inbox, stateDir }),
    session: async () =>
      ({
        accountId: 'acc-1',
        mailboxIdsByRole: { drafts: 'mb-drafts', sent: 'mb-sent' },
        ...options.session,
      }) as JmapSessionInfo,
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      reads.push(request);
      const [method, args, callId] = request.methodCalls[0]!;
      const filter = JSON.stringify(args.filter ?? {});
      if (method === 'Email/query') {
        // The known mode's lookups: mail in Sent (none here), mail received from an address.
        const from = (args.filter as { from?: string } | undefined)?.from;
        const list = filter.includes('inMailbox')
          ? []
          : store.received
              .filter((mail) => mail.from === from)
              .map((mail, i) => ({
                id: `R${i}`,
                from: [{ email: mail.from }],
                'header:Authentication-Results:asText:all': mail.authenticationResults,
              }));
        return {
          methodResponses: [
            ['Email/query', { ids: [] }, callId],
            ['Email/get', { list }, 'g'],
          ],
          sessionState: 's',
        } as JmapResponse;
      }
      const ids = Array.isArray(args.ids) ? (args.ids as string[]) : [];
      const list =
        method === 'Email/get'
          ? ids.filter((id) => id in store.emails).map((id) => ({ id, blobId: `blob-${id}` }))
          : [];
      return { methodResponses: [[method, { list }, callId]], sessionState: 's' } as JmapResponse;
    },
    download: async (blobId: string): Promise<Uint8Array> => {
      const email = blobId.startsWith('blob-') ? store.emails[blobId.slice(5)] : undefined;
      if (email !== undefined) return Buffer.from(email, 'utf8');
      const bytes = store.blobs[blobId];
      if (!bytes) throw new Error(`no blob ${blobId}`);
      return bytes;
    },
    notify: (notice: GuardNotice) => void notices.push(notice),
  };
  return {
    context,
    root,
    stateDir,
    userConfigDir,
    inbox,
    notices,
    reads,
    store,
    inboxPolicy: (policy) => writePolicy(join(stateDir, 'policy.json'), stateDir, policy),
    userPolicy: (policy) => writePolicy(join(userConfigDir, 'user-policy.json'), userConfigDir, policy),
  };
}

/** A batch that creates one mail and submits it (what send_mail sends). */
export function mailBatch(
  mails: readonly { to: string[]; subject: string; body?: string; cc?: string[] }[],
  extra: { accountId?: string } = {},
): JmapRequest {
  const create = Object.fromEntries(
    mails.map((mail, i) => [
      `d${i}`,
      {
        mailboxIds: { 'mb-sent': true },
        from: [{ email: 'ada@agent-mailbox.test' }],
        to: mail.to.map((email) => ({ email })),
        ...(mail.cc ? { cc: mail.cc.map((email) => ({ email })) } : {}),
        subject: mail.subject,
        bodyValues: { b: { value: mail.body ?? 'Hello.' } },
        textBody: [{ partId: 'b', type: 'text/plain' }],
      },
    ]),
  );
  const submissions = Object.fromEntries(mails.map((_, i) => [`s${i}`, { emailId: `#d${i}`, identityId: 'id-1' }]));
  return {
    using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission'],
    methodCalls: [
      ['Email/set', { accountId: 'acc-1', create }, 'c0'],
      ['EmailSubmission/set', { accountId: extra.accountId ?? 'acc-1', create: submissions }, 'c1'],
    ],
  };
}

/** The server's answer to a mailBatch: every mail created (id M<i>) and submitted (id S<i>). */
export function mailBatchAnswer(count: number): JmapResponse {
  const created = Object.fromEntries(Array.from({ length: count }, (_, i) => [`d${i}`, { id: `M${i}` }]));
  const submitted = Object.fromEntries(Array.from({ length: count }, (_, i) => [`s${i}`, { id: `S${i}` }]));
  return {
    methodResponses: [
      ['Email/set', { created }, 'c0'],
      ['EmailSubmission/set', { created: submitted }, 'c1'],
    ],
    sessionState: 's',
  } as JmapResponse;
}
