import type { Account } from '../auth/account-registry.js';
import { MailboxError } from '../errors.js';
import type { Logger } from '../log.js';
import { jmapCapabilities, jmapSessionPath } from '../wire-constants.js';
import { httpError, networkError } from './http-failure.js';
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
  fetch?: typeof fetch;
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
}

const retryDelaysMs = [250, 1000];
const sessionMaxAgeMs = 24 * 60 * 60 * 1000;

/**
 * JMAP over HTTP for one account: session discovery (cached in state.json), method calls,
 * uploads and downloads. A 401 re-mints the capability and retries once (issue 3).
 */
export class JmapClient {
  private readonly fetchImpl: typeof fetch;
  private cached: JmapSessionInfo | undefined;
  private isSessionStale = false;

  constructor(
    private readonly account: Account,
    private readonly options: JmapClientOptions,
  ) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** The session facts: from memory or state.json when current, else fetched and cached. */
  async session(opts: { signal?: AbortSignal; refresh?: boolean } = {}): Promise<JmapSessionInfo> {
    const config = await this.account.config();
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
      get: (url) => this.send({ url, method: 'GET', idempotent: true, what: 'JMAP session discovery' }, opts.signal),
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
      { url, method: 'POST', headers: { 'content-type': type }, body: bytes, idempotent: false, what: 'Upload' },
      opts.signal,
    );
    const parsed = uploadResponseSchema.safeParse(await readJson(response, 'Upload'));
    if (!parsed.success) throw badResponse('upload', parsed.error.message);
    return { blobId: parsed.data.blobId, type: parsed.data.type, size: parsed.data.size };
  }

  /** Downloads a blob through the session's downloadUrl template (RFC 8620 §6.2). */
  async download(blobId: string, opts: { name?: string; type?: string; signal?: AbortSignal } = {}): Promise<Uint8Array> {
    const session = await this.session({ signal: opts.signal });
    const url = expandTemplate(session.downloadUrl, {
      accountId: session.accountId,
      blobId,
      name: opts.name ?? 'download',
      type: opts.type ?? 'application/octet-stream',
    });
    const response = await this.send({ url, method: 'GET', idempotent: true, what: 'Download' }, opts.signal);
    return new Uint8Array(await response.arrayBuffer());
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
      },
      signal,
    );
    const parsed = jmapResponseSchema.safeParse(await readJson(response, 'JMAP request'));
    if (!parsed.success) throw badResponse('JMAP request', parsed.error.message);
    return parsed.data;
  }

  /** One authorised HTTP exchange: timeout, retry with backoff, one 401 re-mint (issue 3). */
  private async send(req: AuthorizedRequest, signal: AbortSignal | undefined): Promise<Response> {
    let reminted = false;
    for (let attempt = 0; ; attempt++) {
      const jwt = await this.account.capability(signal ? { signal } : {});
      let response: Response;
      try {
        response = await this.fetchImpl(req.url, {
          method: req.method,
          headers: { ...req.headers, authorization: `Bearer ${jwt}`, accept: 'application/json' },
          body: req.body,
          redirect: 'follow',
          signal: timeoutSignal(signal, this.options.timeoutMs),
        });
      } catch (error) {
        const failure = networkError(error, req.what, req.url, signal, this.options.timeoutMs);
        // A POST may have reached the server before the connection broke: never resend it.
        if (failure.code === 'network' && req.idempotent && attempt < retryDelaysMs.length) {
          await backoff(retryDelaysMs[attempt] ?? 1000, signal);
          continue;
        }
        throw failure;
      }
      if (response.status === 401 && !reminted) {
        await response.body?.cancel();
        this.account.invalidateCapability(jwt);
        reminted = true;
        this.options.log.debug(`${req.what}: 401, minting a fresh capability and retrying once`);
        continue;
      }
      // 429 and 503 mean "not processed": safe to retry even for a POST.
      const isRetryable = response.status === 429 || response.status === 503 || (req.idempotent && response.status >= 500);
      if (isRetryable && attempt < retryDelaysMs.length) {
        await response.body?.cancel();
        await backoff(retryAfterMs(response) ?? retryDelaysMs[attempt] ?? 1000, signal);
        continue;
      }
      if (!response.ok) throw await httpError(response, req.what);
      return response;
    }
  }
}

/** Expands an RFC 6570 level-1 template such as `/download/{accountId}/{blobId}/{name}?accept={type}`. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (values[key] === undefined ? whole : encodeURIComponent(values[key])));
}

/** True when the session advertises the capability (server level). */
export function hasCapability(session: JmapSessionInfo, urn: string): boolean {
  return session.capabilities.includes(urn) || (urn === jmapCapabilities.core && session.capabilities.length === 0);
}

function timeoutSignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 10) * 1000 : undefined;
}

function backoff(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
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
