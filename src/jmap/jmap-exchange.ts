import type { HttpResponse } from '../http/http-types.js';
import type { BodyTarget } from '../http/read-bounded-body.js';

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

export type SendExchange = (exchange: JmapExchange) => Promise<HttpResponse>;
