import type { FileHandle } from 'node:fs/promises';
import * as z from 'zod';
import type { Account } from '../auth/account-registry.js';
import { MailboxError, inputRef, settingRef } from '../errors.js';
import type { HttpResponse } from '../http/http-types.js';
import { jsonOrUndefined } from '../http/parse-json-bytes.js';
import type { BodyTarget } from '../http/read-bounded-body.js';
import type { Logger } from '../log.js';
import { redactCredentialEcho, redactDeep } from '../redact.js';
import { jmapSessionPath } from '../wire-constants.js';
import {
  jmapResponseSchema,
  problemDetailsSchema,
  uploadResponseSchema,
  type JmapRequest,
  type JmapResponse,
  type JmapSessionInfo,
} from './jmap-types.js';
import { expandTemplate, fetchSessionInfo, foreignSessionUrls, readCachedSession } from './jmap-session.js';

/** One HTTP exchange the JMAP client describes; the gate authorises and sends it and returns any final status. */
export interface JmapExchange {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Reads are idempotent; a POST is resent only when the server refused it. */
  idempotent: boolean;
  /** For messages ("JMAP request", "Upload"). */
  what: string;
  maxBytes: number;
  target?: BodyTarget;
}

/** Body caps: a JMAP answer may carry many messages yet stays far below a few hundred MB; downloads go to disk. */
const jmapBodyLimits = {
  session: 1024 * 1024,
  api: 32 * 1024 * 1024,
  upload: 64 * 1024,
  downloadCeiling: 1024 * 1024 * 1024,
} as const;
const sessionMaxAgeMs = 24 * 60 * 60 * 1000;

/** JMAP over HTTP for one account: session (cached in state.json), calls, uploads, downloads; the gate sends. */
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
      // Refetched when made for another JMAP host, a day old (renamed mailboxes), or leading elsewhere (judged anew).
      const isFresh = known !== undefined && Date.now() - Date.parse(known.fetchedAt) < sessionMaxAgeMs;
      if (isFresh && known.sessionUrl === sessionUrl && foreignSessionUrls(known, config.allowedOrigins).length === 0)
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

  async call(request: JmapRequest): Promise<JmapResponse> {
    const session = await this.session();
    const response = await this.post(session.apiUrl, request);
    if (response.sessionState && session.sessionState && response.sessionState !== session.sessionState) {
      // RFC 8620 §3.4: the session changed; refetch it before the next use, not in the middle of this one.
      this.isSessionStale = true;
    }
    return response;
  }

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

  /** A blob (RFC 8620 §6.2) straight into an open file, capped by the session's limits: never held in memory. */
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

/** Maps a non-2xx JMAP HTTP answer (RFC 8620 §3.6.1 problem details when present) to a MailboxError. */
function httpError(response: HttpResponse, what: string): MailboxError {
  // Server text may echo the request, Authorization header included: redacted before it is kept.
  const text = redactCredentialEcho(response.text());
  // Not JSON: the status and a snippet of the body still say enough.
  const problem = problemDetailsSchema.safeParse(redactDeep(jsonOrUndefined(response), redactCredentialEcho)).data;
  const status = response.status;
  const refusal = oauthRefusal(response);
  if (refusal) return refusal;
  const said = problem
    ? `${problem.type}${problem.detail ? `: ${problem.detail}` : ''}${problem.limit ? ` (limit ${problem.limit})` : ''}`
    : text.slice(0, 200);
  if (status === 401 || status === 403)
    return new MailboxError({
      code: 'auth_rejected',
      status,
      message: `${what} was refused by the JMAP host (HTTP ${status}) even with a fresh capability${said ? `: ${said}` : ''}.`,
      hint: `Check that credentials.json belongs to this service (${settingRef('apiUrl')}), or log in again with register ${inputRef('api_key')}.`,
    });
  if (status === 429) {
    const after = response.headers.get('retry-after');
    return new MailboxError({
      code: 'rate_limited',
      status,
      message: `${what} was rate-limited (HTTP 429${after ? `, the server asks to wait ${after.trim()} s` : ''}); it was not processed.`,
      hint: after ? `Wait ${after.trim()} seconds, then retry.` : 'Wait a minute before retrying.',
    });
  }
  if (status >= 500)
    return new MailboxError({
      code: 'server_error',
      status,
      message: `${what} failed on the server (HTTP ${status})${said ? `: ${said}` : ''}.`,
      hint: 'Retry in a minute; if it persists the service is down.',
    });
  const unknownCapability = problem?.type.endsWith('unknownCapability');
  return new MailboxError({
    code: 'jmap_request_error',
    status,
    message: `${what} was rejected (HTTP ${status})${said ? `: ${said}` : ''}.`,
    hint: unknownCapability
      ? 'Remove the capability the server does not know from `using` (or send a bare methodCalls array and let the client choose).'
      : problem?.type.endsWith('limit')
        ? 'The request exceeds a server limit: fewer calls or objects per request, or smaller data.'
        : 'Check the JSON shape: {"using": [...], "methodCalls": [["Method/name", {...}, "c1"]]} (help topic "jmap").',
    details: problem ? { problem } : undefined,
  });
}

const oauthErrorBody = z.looseObject({ error: z.string(), error_description: z.string().optional() });

/** The OAuth refusals (spec §7.1): 403 insufficient_scope (scope in WWW-Authenticate, RFC 6750 §3) or access_denied. */
function oauthRefusal(response: HttpResponse): MailboxError | undefined {
  if (response.status !== 403) return undefined;
  const body = oauthErrorBody.safeParse(jsonOrUndefined(response)).data;
  const said = body?.error_description ? `: ${redactCredentialEcho(body.error_description).slice(0, 300)}` : '';
  if (body?.error === 'insufficient_scope') {
    const scope = /scope="([^"]{1,100})"/.exec(response.headers.get('www-authenticate') ?? '')?.[1] ?? 'mail.send';
    return new MailboxError({
      code: 'insufficient_scope',
      status: 403,
      message: `The service refused this request: the connected account's grant lacks the ${scope} scope (insufficient_scope${said}). Nothing was sent.`,
      hint: `Only the operator can grant ${scope}: they run agent-mailbox connect --scope read,send for this credentials directory, and the person approves it on the consent page. Until then this inbox can only be read (and while a wake run is active for it, its tokens are read-only on purpose).`,
      details: { scope },
    });
  }
  if (body?.error === 'access_denied')
    return new MailboxError({
      code: 'inbox_unknown',
      status: 403,
      message: `The service refused this request: the chosen inbox does not belong to the connected account (access_denied${said}).`,
      hint: 'Call list_inboxes to see the inboxes the account has now, and pick one of them.',
      next: { operation: 'list_inboxes' },
    });
  return undefined;
}
