/** Stable codes of the hosted tools' errors (the `code` of a tool error's structured content). */
export type HostedToolErrorCode =
  | 'invalid_input'
  | 'insufficient_scope'
  | 'access_denied'
  | 'choose_inbox'
  | 'no_inbox'
  | 'not_found'
  | 'refused'
  | 'disabled'
  | 'jmap_error'
  | 'mail_store_error'
  | 'mail_store_timeout'
  | 'cancelled'
  | 'internal';

/**
 * A hosted tool's refusal or failure: what happened (one sentence, no secrets), the next step, and
 * optionally the tool to call next. It becomes an `isError` result; the MCP SDK's own catch would
 * keep only the message.
 */
export class HostedToolError extends Error {
  constructor(
    readonly code: HostedToolErrorCode,
    message: string,
    readonly hint: string,
    readonly next?: { tool: string; input?: Record<string, unknown> },
  ) {
    super(message);
    this.name = 'HostedToolError';
  }
}
