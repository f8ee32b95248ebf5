import type { FileHandle } from 'node:fs/promises';
import type { Account, ListedInbox } from '../auth/account-registry.js';
import { settings } from '../config.js';
import { MailboxError } from '../errors.js';
import type { FetchFunction, HttpResponse } from '../http/http-types.js';
import { EventStreamFailure, type EventStream } from '../http/event-stream.js';
import { JmapClient, type JmapExchange } from '../jmap/jmap-client.js';
import type { JmapRequest, JmapResponse, JmapSessionInfo } from '../jmap/jmap-types.js';
import type { Logger } from '../log.js';
import { serviceAccountHeader } from '../wire-constants.js';
import { guardedInbox } from '../policy/records/inbox-state-dir.js';
import type { FrontDoor } from '../render/front-door.js';
import { explainUnreachableSandbox } from '../credentials/explain-unreachable-sandbox.js';
import { ReceiveScreen } from '../screen/receive-screen.js';
import { Deadline } from './deadline.js';
import {
  isReadOnlyMethod,
  type Check,
  type CheckContext,
  type CheckOutcome,
  type GuardNotice,
  type GuardOptions,
  type OutgoingUpload,
} from './outgoing.js';
import { openServiceStream, sendToService } from './send-to-service.js';

export interface ServiceGateOptions {
  account: Account;
  deadline: Deadline;
  signal: AbortSignal;
  log: Logger;
  frontDoor: FrontDoor;
  isWake?: boolean;
  /** The check stage (the pipeline's is src/request/check-outgoing.ts): no default, so no gate sends unchecked. */
  check: Check;
  guard?: GuardOptions;
  /** The operator's view (`--include-held`, CLI at a terminal): the screen judges held mail but shows it. */
  includeHeld?: boolean;
  fetch?: FetchFunction;
}

export type EventStreamBounds = Pick<
  Parameters<typeof openServiceStream>[1],
  'idleTimeoutMs' | 'maxEventBytes' | 'maxTotalBytes'
>;

/**
 * The gate of one call: everything it sends to the JMAP host (method calls, uploads, downloads, the
 * session, the push stream) passes here under the call's one deadline, with the capability renewed
 * (re-minted once after a 401). The check stage sees each batch and upload first and may stop it:
 * the one place the operator's rules are enforced. A check's own reads go out past it (`read`).
 */
export class ServiceGate {
  readonly deadline: Deadline;
  private readonly client: JmapClient;
  private readonly checkContext: CheckContext;
  /** What the check asked to be shown with the result (mail held for the operator). */
  readonly notices: GuardNotice[] = [];
  /** The call's receive screen: what it held back, and the held ids asked for by id. */
  readonly screen: ReceiveScreen;

  constructor(private readonly options: ServiceGateOptions) {
    this.deadline = options.deadline;
    this.client = new JmapClient(options.account, { log: options.log, send: (exchange) => this.exchange(exchange) });
    const { account } = options;
    this.checkContext = {
      credentialsDir: account.dir,
      frontDoor: options.frontDoor,
      isWake: options.isWake === true,
      deadline: options.deadline,
      guard: options.guard ?? {},
      config: () => account.config(),
      inbox: async () => guardedInbox(await account.inbox({ signal: options.signal, deadline: options.deadline })),
      session: () => this.client.session(),
      read: (request) => this.read(request),
      download: (blobId, maxBytes) => this.client.downloadBytes(blobId, maxBytes),
      notify: (notice) => this.notices.push(notice),
    };
    this.screen = new ReceiveScreen({
      account: options.account,
      session: () => this.client.session(),
      lookup: (request) => this.read(request),
      ...(options.includeHeld ? { includeHeld: true } : {}),
    });
  }

  session(opts: { refresh?: boolean } = {}): Promise<JmapSessionInfo> {
    return this.client.session(opts);
  }

  /** One batch: checked (maybe rewritten), sent, then screened; the check's settle sees the raw answer first. */
  async call(request: JmapRequest): Promise<JmapResponse> {
    const outcome: CheckOutcome = (await this.options.check({ kind: 'batch', request }, this.checkContext)) ?? {};
    const sent = outcome.request ?? request;
    const response = await settled(outcome, () => this.client.call(sent));
    return this.screen.screen(sent, (await outcome.settle?.({ kind: 'batch', response })) ?? response);
  }

  async upload(upload: Omit<OutgoingUpload, 'kind'>): Promise<{ blobId: string; type: string; size: number }> {
    const outcome: CheckOutcome = (await this.options.check({ kind: 'upload', ...upload }, this.checkContext)) ?? {};
    const uploaded = await settled(outcome, () => this.client.upload(upload.bytes, upload.type));
    await outcome.settle?.({ kind: 'upload', blobId: uploaded.blobId });
    return uploaded;
  }

  /** A blob written straight into an open file (RFC 8620 §6.2), once the screen lets it; returns its size. */
  async download(
    blobId: string,
    handle: FileHandle,
    opts: { name?: string; type?: string; mailId?: string } = {},
  ): Promise<number> {
    await this.screen.checkDownload(blobId, opts.mailId);
    const { mailId: _mailId, ...wire } = opts;
    return this.client.download(blobId, handle, wire);
  }

  /** Opens the push stream at `url` with a capability, re-minted once if the host refuses it. */
  openEvents(url: string, bounds: EventStreamBounds): Promise<EventStream> {
    const { signal, fetch } = this.options;
    return this.authorized(async (auth, last) => {
      try {
        return await openServiceStream(url, {
          headers: auth,
          ...bounds,
          signal,
          deadline: this.deadline,
          ...(fetch ? { fetch } : {}),
        });
      } catch (error) {
        if (!(error instanceof EventStreamFailure && error.status === 401) || last) throw error;
        return undefined;
      }
    });
  }

  /** The inboxes the account's directory reaches (a connected account's list: GET /api/v1/agents on the auth host). */
  listInboxes(refresh = false): Promise<ListedInbox[]> {
    return this.options.account.listInboxes({ signal: this.options.signal, deadline: this.deadline, refresh });
  }

  /** A check's own lookup: read-only, and not checked again. */
  private async read(request: JmapRequest): Promise<JmapResponse> {
    const writes = request.methodCalls.map(([method]) => method).filter((method) => !isReadOnlyMethod(method));
    if (writes.length > 0)
      throw new MailboxError({
        code: 'internal',
        message: `A check may only read through the gate; it asked for ${writes.join(', ')}.`,
        hint: "Report this as a bug in the operator's rules.",
      });
    return this.client.call(request);
  }

  /** Runs `send` with a capability, again with a fresh one on undefined (a 401 took no effect); names a dead sandbox. */
  private async authorized<T>(
    send: (auth: Record<string, string>, last: boolean) => Promise<T | undefined>,
  ): Promise<T> {
    const { account, signal } = this.options;
    try {
      for (let reminted = false; ; reminted = true) {
        // On the OAuth path every request to the JMAP host names its inbox (spec §4.2 rules 1–3).
        const { serviceAccountId } = await account.inbox({ signal, deadline: this.deadline });
        const inbox: Record<string, string> =
          serviceAccountId === undefined ? {} : { [serviceAccountHeader]: serviceAccountId };
        const jwt = await account.capability({ signal, deadline: this.deadline });
        const result = await send({ ...inbox, authorization: `Bearer ${jwt}` }, reminted);
        if (result !== undefined) return result;
        account.invalidateCapability(jwt);
      }
    } catch (error) {
      if (!(error instanceof MailboxError) || error.code !== 'network') throw error;
      throw await explainUnreachableSandbox(error, {
        dir: account.dir,
        credentials: await account.credentials().catch(() => undefined),
      });
    }
  }

  private exchange(exchange: JmapExchange): Promise<HttpResponse> {
    const { signal, log, fetch } = this.options;
    return this.authorized(async (auth, last) => {
      const response = await sendToService(
        exchange.url,
        {
          method: exchange.method,
          headers: { ...exchange.headers, ...auth, accept: 'application/json' },
          ...(exchange.body !== undefined ? { body: exchange.body } : {}),
        },
        {
          deadline: this.deadline,
          what: exchange.what,
          retry: exchange.idempotent ? 'idempotent' : 'once',
          maxBytes: exchange.maxBytes,
          log,
          signal,
          ...(exchange.target ? { target: exchange.target } : {}),
          ...(fetch ? { fetch } : {}),
        },
      );
      if (response.status !== 401 || last) return response;
      log.debug(`${exchange.what}: 401, minting a fresh capability and retrying once`);
      return undefined;
    });
  }
}

/** Runs `send`; a failure goes to the check's settle hook before it reaches the caller. */
async function settled<T>(outcome: CheckOutcome, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    await outcome.settle?.({ kind: 'failed', error });
    throw error;
  }
}

/** What a caller gives to open a gate: the options without the account, and defaults for the rest. */
export type GateContext = Omit<ServiceGateOptions, 'account' | 'deadline' | 'frontDoor'> & {
  /** The call's deadline, started by the front door; without one, a deadline of `timeoutMs` starts here. */
  deadline?: Deadline;
  /** Without a deadline: the configured timeout (default 30 s). */
  timeoutMs?: number;
  frontDoor?: FrontDoor;
};

export function openServiceGate(account: Account, context: GateContext): ServiceGate {
  const { timeoutMs, ...options } = context;
  return new ServiceGate({
    ...options,
    account,
    deadline: context.deadline ?? Deadline.start({ timeoutMs: timeoutMs ?? settings.timeoutMs.defaultValue() }),
    frontDoor: context.frontDoor ?? 'cli',
  });
}
