import { checkClientMetadata } from './client-metadata.js';
import type { ClientRecord } from './client-registry.js';
import { readCappedResponse } from '../../read-capped-response.js';

/** Why a client_id URL gave no usable client; shown on the authorization error page. */
export class ClientDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientDocumentError';
  }
}

export interface ClientDocumentOptions {
  /** Test-only: accept http://127.0.0.1 (or localhost) client_id URLs, so a test can serve the document itself. */
  allowLoopbackHttp: boolean;
  /** Deadline for the whole fetch, body included. */
  timeoutMs: number;
  now(): number;
}

/** A metadata document is a short JSON object; more than this is not one. */
export const maxClientDocumentBytes = 64 * 1024;
export const defaultClientDocumentTimeoutMs = 5000;
const cacheMs = 5 * 60_000;
const maxCached = 100;
const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a client_id is a URL (a client metadata document) rather than an id this server issued. */
export function isClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * Clients whose client_id is an https URL of their metadata (spec §2.7, §5.2; the OAuth Client ID
 * Metadata Document draft): fetched with a deadline and a size cap, no redirects followed,
 * validated like a registration, and kept for five minutes.
 */
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, { client: ClientRecord; until: number }>();

  constructor(private readonly options: ClientDocumentOptions) {}

  /** The client a client_id URL describes; throws ClientDocumentError when it describes none. */
  async resolve(clientId: string): Promise<ClientRecord> {
    const cached = this.cache.get(clientId);
    if (cached && cached.until > this.options.now()) return cached.client;
    this.checkUrl(clientId);
    const document = await this.fetchDocument(clientId);
    if (typeof document !== 'object' || document === null || Array.isArray(document))
      throw new ClientDocumentError('The client metadata document is not a JSON object.');
    const fields = document as Record<string, unknown>;
    if (fields['client_id'] !== clientId)
      throw new ClientDocumentError(
        'The client metadata document names a different client_id than the URL it was fetched from.',
      );
    if ('client_secret' in fields || 'client_secret_expires_at' in fields)
      throw new ClientDocumentError(
        'The client metadata document carries a client_secret; a document client must not have one.',
      );
    const verdict = checkClientMetadata(document, ['none'], 'none');
    if (!verdict.ok) throw new ClientDocumentError(`The client metadata document is not valid: ${verdict.description}`);
    const client: ClientRecord = { ...verdict.fields, clientId, issuedAt: Math.floor(this.options.now() / 1000) };
    if (this.cache.size >= maxCached) this.cache.delete(this.cache.keys().next().value ?? '');
    this.cache.set(clientId, { client, until: this.options.now() + cacheMs });
    return client;
  }

  private checkUrl(clientId: string): void {
    if (!URL.canParse(clientId)) throw new ClientDocumentError('The client_id is not a valid URL.');
    const url = new URL(clientId);
    const isLoopbackHttp = url.protocol === 'http:' && loopbackHosts.has(url.hostname);
    if (url.protocol !== 'https:' && !(isLoopbackHttp && this.options.allowLoopbackHttp)) {
      throw new ClientDocumentError('A client_id URL must use https.');
    }
    if (
      url.pathname === '/' ||
      url.hash !== '' ||
      url.username !== '' ||
      url.password !== '' ||
      /\/\.\.?(\/|$)/.test(clientId)
    ) {
      throw new ClientDocumentError('A client_id URL needs a path, and no fragment, user information or dot segments.');
    }
  }

  private async fetchDocument(clientId: string): Promise<unknown> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let text: string;
    try {
      const response = await fetch(clientId, { redirect: 'error', signal, headers: { accept: 'application/json' } });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new ClientDocumentError(
          `Fetching the client metadata document answered HTTP ${response.status}, not 200.`,
        );
      }
      const type = response.headers.get('content-type') ?? '';
      if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type)) {
        await response.body?.cancel();
        throw new ClientDocumentError('The client metadata document is not served as application/json.');
      }
      const capped = await readCappedResponse(response, maxClientDocumentBytes);
      if (capped === undefined)
        throw new ClientDocumentError(`The client metadata document is larger than ${maxClientDocumentBytes} bytes.`);
      text = capped;
    } catch (error) {
      if (error instanceof ClientDocumentError) throw error;
      if (signal.aborted)
        throw new ClientDocumentError(
          `Fetching the client metadata document took longer than ${this.options.timeoutMs} ms.`,
        );
      throw new ClientDocumentError(
        'The client metadata document could not be fetched (connection failed, or the server redirected).',
      );
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new ClientDocumentError('The client metadata document is not valid JSON.');
    }
  }
}
