import type { FileHandle } from 'node:fs/promises';
import type { Account } from '../auth/account-registry.js';
import { MailboxError } from '../errors.js';
import type { Logger } from '../log.js';
import { jmapCapabilities, jmapSessionPath } from '../wire-constants.js';
import { sendHttp, type FetchFunction, type HttpResponse } from '../http/send-http.js';
import type { BodyTarget } from '../http/read-bounded-body.js';
import { httpError } from './http-failure.js';
import {
  jmapResponseSchema,
  uploadResponseSchema,
  type JmapCallOptions,
  type JmapRequest,
  type JmapResponse,
  type JmapSessionInfo,
} from './jmap-types.js';
import { fetchSessionInfo, readCachedSession } from './jmap-session.js';

export interface JmapClientOptions {
  log: Logger;
  timeoutMs: number;
  fetch?: FetchFunction;
}

/** What an authorised request sends; the bearer is added per attempt. */
interface AuthorizedRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Which failures may be retried: reads are idempotent, a POST only when the server refused it. */
  idempotent: boolean;
  what: string;
  maxBytes: number;
  target?: BodyTarget;
}

/**
 * Body caps. The session resource is a few KB; a JMAP answer can carry many messages, so it gets a
 * generous ceiling that still keeps the process far below a few hundred MB; downloads go to disk.
 */
export const jmapBodyLimits = { session: 1024 * 1024, api: 32 * 1024 * 1024, upload: 64 * 1024, downloadCeiling: 1024 * 1024 * 1024 } as const;
const sessionMaxAgeMs = 24 * 60 * 60 * 1000;

/**
 * JMAP over HTTP for one account: session discovery (cached in state.json), method calls,
 * uploads and downloads. A 401 re-mints the capability and retries once (issue 3).
 */
export class JmapClient {
  private cached: JmapSessionInfo | undefined;
  // One client serves one jmap_request: its settings cannot change meanwhile, so they are read once.
  private config: ReturnType<Account['config']> | undefined;
  private isSessionStale = false;

  constructor(
    private readonly account: Account,
    private readonly options: JmapClientOptions,
  ) {}

  /** The session facts: from memory or state.json when current, else fetched and cached. */
  async session(opts: { signal?: AbortSignal; refresh?: boolean } = {}): Promise<JmapSessionInfo> {
    const config = await (this.config ??= this.account.config());
    const sessionUrl = `${config.apiUrl}${jmapSessionPath}`;
    if (!opts.refresh && !this.isSessionStale) {
      const known = this.cached ?? (await readCachedSession(this.account));
      // A cache made for another JMAP host (the operator changed --api-url) is never reused, and
      // a day-old one is refetched so renamed or recreated mailboxes are picked up.
      const isFresh = known !== undefined && Date.now() - Date.parse(known.fetchedAt) < sessionMaxAgeMs;
      if (known && isFresh && known.sessionUrl === sessionUrl) return (this.cached = known);
    }
    const info = await fetchSessionInfo({
      sessionUrl,
      account: this.account,
      config,
      get: (url) => this.send({ url, method: 'GET', idempotent: true, what: 'JMAP session discovery', maxBytes: jmapBodyLimits.session }, opts.signal),
      post: (apiUrl, request) => this.post(apiUrl, request, opts.signal),
    });
    await this.account.updateState((state) => ({ ...state, session: { ...info } }));
    this.cached = info;
    this.isSessionStale = false;
    this.options.log.debug(`JMAP session cached: api ${info.apiUrl}, account ${info.accountId}`);
    return info;
  }

  /** POSTs one JMAP request to the session's apiUrl and validates the envelope of the answer. */
  async call(request: JmapRequest, opts: JmapCallOptions = {}): Promise<JmapResponse> {
    const session = await this.session({ signal: opts.signal });
    const response = await this.post(session.apiUrl, request, opts.signal);
    if (response.sessionState && session.sessionState && response.sessionState !== session.sessionState) {
      // RFC 8620 §3.4: the session changed; refetch it before the next use, not in the middle of this one.
      this.isSessionStale = true;
    }
    return response;
  }

  /** Uploads bytes to the session's uploadUrl (RFC 8620 §6.1). */
  async upload(bytes: Uint8Array, type: string, opts: JmapCallOptions = {}): Promise<{ blobId: string; type: string; size: number }> {
    const session = await this.session({ signal: opts.signal });
    const url = expandTemplate(session.uploadUrl, { accountId: session.accountId });
    const response = await this.send(
      { url, method: 'POST', headers: { 'content-type': type }, body: bytes, idempotent: false, what: 'Upload', maxBytes: jmapBodyLimits.upload },
      opts.signal,
    );
    const parsed = uploadResponseSchema.safeParse(readJson(response, 'Upload'));
    if (!parsed.success) throw badResponse('upload', parsed.error.message);
    return { blobId: parsed.data.blobId, type: parsed.data.type, size: parsed.data.size };
  }

  /**
   * Downloads a blob through the session's downloadUrl template (RFC 8620 §6.2) straight into an
   * open file, capped by the session's size limits (never more than the ceiling): no blob is held in memory.
   */
  async download(blobId: string, handle: FileHandle, opts: { name?: string; type?: string; signal?: AbortSignal } = {}): Promise<number> {
    const session = await this.session({ signal: opts.signal });
    const url = expandTemplate(session.downloadUrl, {
      accountId: session.accountId,
      blobId,
      name: opts.name ?? 'download',
      type: opts.type ?? 'application/octet-stream',
    });
    const response = await this.send(
      { url, method: 'GET', idempotent: true, what: 'Download', maxBytes: downloadLimit(session), target: { kind: 'file', handle } },
      opts.signal,
    );
    return response.size;
  }

  private async post(apiUrl: string, request: JmapRequest, signal: AbortSignal | undefined): Promise<JmapResponse> {
    const response = await this.send(
      {
        url: apiUrl,
        method: 'POST',
        // Cyrus answers 415 to anything but application/json (jmap.md).
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
        idempotent: false,
        what: 'JMAP request',
        maxBytes: jmapBodyLimits.api,
      },
      signal,
    );
    const parsed = jmapResponseSchema.safeParse(readJson(response, 'JMAP request'));
    if (!parsed.success) throw badResponse('JMAP request', parsed.error.message);
    return parsed.data;
  }

  /**
   * One authorised exchange through the shared HTTP layer (deadline, cap, retry rule), plus one
   * re-mint of the capability on a 401 (issue 3): a 401 was refused, so nothing took effect.
   */
  private async send(req: AuthorizedRequest, signal: AbortSignal | undefined): Promise<HttpResponse> {
    for (let reminted = false; ; reminted = true) {
      const jwt = await this.account.capability(signal ? { signal } : {});
      const response = await sendHttp(
        req.url,
        { method: req.method, headers: { ...req.headers, authorization: `Bearer ${jwt}`, accept: 'application/json' }, ...(req.body !== undefined ? { body: req.body } : {}) },
        {
          what: req.what,
          retry: req.idempotent ? 'idempotent' : 'once',
          timeoutMs: this.options.timeoutMs,
          maxBytes: req.maxBytes,
          log: this.options.log,
          ...(req.target ? { target: req.target } : {}),
          ...(signal ? { signal } : {}),
          ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        },
      );
      if (response.status === 401 && !reminted) {
        this.account.invalidateCapability(jwt);
        this.options.log.debug(`${req.what}: 401, minting a fresh capability and retrying once`);
        continue;
      }
      if (response.status < 200 || response.status >= 300) throw httpError(response, req.what);
      return response;
    }
  }
}

function downloadLimit(session: JmapSessionInfo): number {
  const { maxSizeUpload, maxSizeAttachmentsPerEmail } = session.limits;
  const largest = Math.max(maxSizeUpload ?? 0, maxSizeAttachmentsPerEmail ?? 0, 100 * 1024 * 1024);
  return Math.min(largest, jmapBodyLimits.downloadCeiling);
}

/** Expands an RFC 6570 level-1 template such as `/download/{accountId}/{blobId}/{name}?accept={type}`. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (values[key] === undefined ? whole : encodeURIComponent(values[key])));
}

/** True when the session advertises the capability (server level). */
export function hasCapability(session: JmapSessionInfo, urn: string): boolean {
  return session.capabilities.includes(urn) || (urn === jmapCapabilities.core && session.capabilities.length === 0);
}

function readJson(response: HttpResponse, what: string): unknown {
  const text = response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badResponse(what, `not JSON: ${text.slice(0, 120)}`);
  }
}

function badResponse(what: string, detail: string): MailboxError {
  return new MailboxError({
    code: 'bad_response',
    message: `The JMAP host's answer to the ${what} was not what JMAP prescribes (${detail}).`,
    hint: 'Check that --api-url / AGENT_MAILBOX_API_URL points at the JMAP host, not the auth host.',
  });
}
