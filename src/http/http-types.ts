// A module of its own so the transport (node-http-fetch.ts) and the sender (send-http.ts) need not import each other.

export type FetchFunction = typeof fetch;

/**
 * Which failures may be resent: `idempotent` anything transient (GETs, a fresh challenge); `once` only what the server
 * cannot have acted on (refused before sending, 429/503): sign-up, login, capability and every JMAP POST.
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
