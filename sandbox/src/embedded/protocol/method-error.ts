/**
 * JMAP method-level and request-level failures of the embedded host. Method errors travel inside
 * HTTP 200 as `["error", {type, description}]` (RFC 8620 §3.6.2); request errors are RFC 7807
 * problem details with HTTP 400 (RFC 8620 §3.6.1).
 */

/** A method-level error (RFC 8620 §3.6.2), e.g. invalidArguments or stateMismatch. */
export class MethodError extends Error {
  constructor(
    readonly type: string,
    description: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(description);
  }

  /** The `["error", …]` arguments object. */
  toArguments(): Record<string, unknown> {
    return { type: this.type, description: this.message, ...this.extra };
  }
}

/** A request-level error (RFC 8620 §3.6.1) answered as problem details with HTTP 400. */
export class RequestProblem extends Error {
  constructor(
    readonly problemType: 'unknownCapability' | 'notJSON' | 'notRequest' | 'limit',
    detail: string,
    readonly status = 400,
    readonly limit?: string,
  ) {
    super(detail);
  }

  /** The RFC 7807 body. */
  toBody(): Record<string, unknown> {
    return {
      type: `urn:ietf:params:jmap:error:${this.problemType}`,
      status: this.status,
      detail: this.message,
      ...(this.limit ? { limit: this.limit } : {}),
    };
  }
}

/** A per-record failure for notCreated / notUpdated / notDestroyed (RFC 8620 §5.3). */
export interface SetError {
  type: string;
  description?: string;
  properties?: string[];
  [key: string]: unknown;
}

/** Builds a SetError. */
export function setError(type: string, description: string, extra: Record<string, unknown> = {}): SetError {
  return { type, description, ...extra };
}
