// A module of its own so the transport (node-http-fetch.ts) and the sender (send-http.ts) need not import each other.

export type FetchFunction = typeof fetch;

/**
 * Which failures may be resent. `idempotent`: anything transient (GETs, a fresh challenge).
 * `once`: only what the server cannot have acted on — a connection refused before sending, or a
 * 429/503 answer, which says the request was not processed. Sign-up, login, capability and every
 * JMAP POST are `once`: resending them could create twice or burn a single-use challenge.
 */
export type RetryRule = 'idempotent' | 'once';

/** A fully read (or, for a download, fully written) response. */
export interface HttpResponse {
  status: number;
  headers: Headers;
  /** Final URL after redirects. */
  url: string;
  body: Buffer;
  size: number;
  text(): string;
  json(): unknown;
}
