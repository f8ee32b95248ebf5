/**
 * The sandbox's own error: it shares no code with the client but wire constants (STYLE.md), so
 * it cannot use the client's MailboxError. Same idea: what happened, and the next step.
 */
export class SandboxError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    /** HTTP status when the error answers a request (401 for a refused capability). */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SandboxError';
  }
}
