import type { FileHandle } from 'node:fs/promises';
import type { Account } from '../auth/account-registry.js';
import { MailboxError, settingRef } from '../errors.js';
import type { HttpResponse } from '../http/http-types.js';
import type { BodyTarget } from '../http/read-bounded-body.js';
import type { Logger } from '../log.js';
import { jmapSessionPath } from '../wire-constants.js';
import { httpError } from './http-failure.js';
import {
  jmapResponseSchema,
  uploadResponseSchema,
  type JmapRequest,
  type JmapResponse,
  type JmapSessionInfo,
} from './jmap-types.js';
import { expandTemplate, fetchSessionInfo, foreignSessionUrls, readCachedSession } from './jmap-session.js';

/**
 * One HTTP exchange the JMAP client asks for. The client says what to send and how to read the
 * answer; whoever sends it (the gate, src/gate/service-gate.ts) authorises it, applies the call's
 * deadline and returns the final answer, whatever its status.
 */
export interface JmapExchange {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Which failures may be retried: reads are idempotent, a POST only when the server refused it. */
  idempotent: boolean;
  /** What is being done, for messages ("JMAP request", "Upload"). */
  what: string;
  maxBytes: number;
  /** A download writes its body here instead of memory. */
  target?: BodyTarget;
}

/**
 * Body caps. The session resource is a few KB; a JMAP answer can carry many messages, so it gets a
 * generous ceiling that still keeps the process far below a few hundred MB; downloads go to disk.
 */
export const jmapBodyLimits = {
  session: 1024 * 1024,
  api: 32 * 1024 * 1024,
  upload: 64 * 1024,
  downloadCeiling: 1024 * 1024 * 1024,
} as const;
const sessionMaxAgeMs = 24 * 60 * 60 * 1000;

/**
 * JMAP over HTTP for one account: session discovery (cached in state.json), method calls, uploads
 * and downloads, and what their answers mean. It only describes exchanges: the gate that holds it
 * (src/gate/service-gate.ts) authorises and sends them.
 */
export class JmapClient {
  private cached: JmapSessionInfo | undefined;
  // One client serves one jmap_request: its settings cannot change meanwhile, so they are read once.
  private config: ReturnType<Account['config']> | undefined;
  private isSessionStale = false;

  constructor(
    private readonly account: Account,
    /** `send`: one exchange, authorised and under the call's deadline (the gate). */
    private readonly options: { log: Logger; send: (exchange: JmapExchange) => Promise<HttpResponse> },
  ) {}

  /** The session facts: from memory or state.json when current, else fetched and cached. */
  async session(opts: { refresh?: boolean } = {}): Promise<JmapSessionInfo> {
    const config = await (this.config ??= this.account.config());
    const sessionUrl = `${config.apiUrl}${jmapSessionPath}`;
    if (!opts.refresh && !this.isSessionStale) {
      const known = this.cached ?? (await readCachedSession(this.account));
      // A cache made for another JMAP host (the operator changed --api-url) is never reused, and
      // a day-old one is refetched so renamed or recreated mailboxes are picked up.
      const isFresh = known !== undefined && Date.now() - Date.parse(known.fetchedAt) < sessionMaxAgeMs;
      // A cache whose URLs lead elsewhere (written before the rule, or by hand) is fetched again and judged then.
      if (
        known &&
        isFresh &&
        known.sessionUrl === sessionUrl &&
        foreignSessionUrls(known, config.allowedOrigins).length === 0
      )
        return (this.cached = known);
    }
    const info = await fetchSessionInfo({
      sessionUrl,
      account: this.account,
      config,
      get: (url) =>
        this.send({
          url,
          method: 'GET',
          idempotent: true,
          what: 'JMAP session discovery',
          maxBytes: jmapBodyLimits.session,
        }),
      post: (apiUrl, request) => this.post(apiUrl, request),
    });
    await this.account.updateState((state) => ({ ...state, session: { ...info } }));
    this.cached = info;
    this.isSessionStale = false;
    this.options.log.debug(`JMAP session cached: api ${info.apiUrl}, account ${info.accountId}`);
    return info;
  }

  /** POSTs one JMAP request to the session's apiUrl and validates the envelope of the answer. */
  async call(request: JmapRequest): Promise<JmapResponse> {
    const session = await this.session();
    const response = await this.post(session.apiUrl, request);
    if (response.sessionState && session.sessionState && response.sessionState !== session.sessionState) {
      // RFC 8620 §3.4: the session changed; refetch it before the next use, not in the middle of this one.
      this.isSessionStale = true;
    }
    return response;
  }

  /** Uploads bytes to the session's uploadUrl (RFC 8620 §6.1). */
  async upload(bytes: Uint8Array, type: string): Promise<{ blobId: string; type: string; size: number }> {
    const session = await this.session();
    const url = expandTemplate(session.uploadUrl, { accountId: session.accountId });
    const response = await this.send({
      url,
      method: 'POST',
      headers: { 'content-type': type },
      body: bytes,
      idempotent: false,
      what: 'Upload',
      maxBytes: jmapBodyLimits.upload,
    });
    const parsed = uploadResponseSchema.safeParse(readJson(response, 'Upload'));
    if (!parsed.success) throw badResponse('upload', parsed.error.message);
    return { blobId: parsed.data.blobId, type: parsed.data.type, size: parsed.data.size };
  }

  /**
   * Downloads a blob through the session's downloadUrl template (RFC 8620 §6.2) straight into an
   * open file, capped by the session's size limits (never more than the ceiling): no blob is held in memory.
   */
  async download(blobId: string, handle: FileHandle, opts: { name?: string; type?: string } = {}): Promise<number> {
    const session = await this.session();
    const response = await this.send({
      url: downloadUrl(session, blobId, opts.name ?? 'download', opts.type),
      method: 'GET',
      idempotent: true,
      what: 'Download',
      maxBytes: downloadLimit(session),
      target: { kind: 'file', handle },
    });
    return response.size;
  }

  /** A blob's bytes in memory, for a look at its content (the operator's guard); more than `maxBytes` is an error. */
  async downloadBytes(blobId: string, maxBytes: number): Promise<Uint8Array> {
    const session = await this.session();
    const response = await this.send({
      url: downloadUrl(session, blobId, 'blob'),
      method: 'GET',
      idempotent: true,
      what: 'Download',
      maxBytes: Math.min(maxBytes, downloadLimit(session)),
    });
    return new Uint8Array(response.body.buffer, response.body.byteOffset, response.body.byteLength);
  }

  private async post(apiUrl: string, request: JmapRequest): Promise<JmapResponse> {
    const response = await this.send({
      url: apiUrl,
      method: 'POST',
      // Cyrus answers 415 to anything but application/json (jmap.md).
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      idempotent: false,
      what: 'JMAP request',
      maxBytes: jmapBodyLimits.api,
    });
    const parsed = jmapResponseSchema.safeParse(readJson(response, 'JMAP request'));
    if (!parsed.success) throw badResponse('JMAP request', parsed.error.message);
    return parsed.data;
  }

  /** One exchange through the gate; an answer outside 2xx is a failure named after what was done. */
  private async send(exchange: JmapExchange): Promise<HttpResponse> {
    const response = await this.options.send(exchange);
    if (response.status < 200 || response.status >= 300) throw httpError(response, exchange.what);
    return response;
  }
}

function downloadUrl(
  session: JmapSessionInfo,
  blobId: string,
  name: string,
  type = 'application/octet-stream',
): string {
  return expandTemplate(session.downloadUrl, { accountId: session.accountId, blobId, name, type });
}

function downloadLimit(session: JmapSessionInfo): number {
  const { maxSizeUpload, maxSizeAttachmentsPerEmail } = session.limits;
  const largest = Math.max(maxSizeUpload ?? 0, maxSizeAttachmentsPerEmail ?? 0, 100 * 1024 * 1024);
  return Math.min(largest, jmapBodyLimits.downloadCeiling);
}

function readJson(response: HttpResponse, what: string): unknown {
  try {
    return response.json();
  } catch {
    throw badResponse(what, `not JSON: ${response.text().slice(0, 120)}`);
  }
}

function badResponse(what: string, detail: string): MailboxError {
  return new MailboxError({
    code: 'bad_response',
    message: `The JMAP host's answer to the ${what} was not what JMAP prescribes (${detail}).`,
    hint: `Check that ${settingRef('apiUrl')} points at the JMAP host, not the auth host.`,
  });
}
