/**
 * The one error class both front doors render. `message` says what happened, `hint` the next
 * step; `next` names an operation of the table so the CLI and MCP can each word it their way.
 */

export const errorCodes = [
  'usage',
  'invalid_input',
  'username_invalid',
  'username_taken',
  'credentials_exist',
  'credentials_missing',
  'credentials_corrupt',
  'credentials_unwritable',
  'credentials_symlink',
  'sandbox_in_default_dir',
  'credentials_wrong_service',
  'sandbox_settings_missing',
  'lock_timeout',
  'pow_cancelled',
  'pow_too_slow',
  'auth_rejected',
  'rate_limited',
  'network',
  'sandbox_not_running',
  'sandbox_not_installed',
  'timeout',
  'server_error',
  'bad_response',
  'response_too_large',
  'signup_answer_lost',
  'preset_unknown',
  'vars_missing',
  'vars_invalid',
  'ops_invalid',
  'attachment_invalid',
  'attachment_too_large',
  'jmap_request_error',
  'jmap_method_error',
  'help_topic_unknown',
  'watch_unsupported',
  'watch_failed',
  'cancelled',
  'oauth_failed',
  'grant_revoked',
  'insufficient_scope',
  'inbox_unknown',
  'inbox_choice_needed',
  'policy_refused',
  'policy_unreadable',
  'operator_required',
  'internal',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** Names an input of the table in a message or hint; each door spells it its way (`--ops-file`, `ops_file`). */
export function inputRef(key: string): string {
  return `⟦${key}⟧`;
}

/** Names a setting in a message or hint: the CLI spells its flag and variable, MCP the server's variable. */
export function settingRef(name: SettingRefName): string {
  return `⟪${name}⟫`;
}

/** The settings a message may name; kept here so the core's errors need not import the config. */
export type SettingRefName = 'authUrl' | 'apiUrl' | 'timeoutMs' | 'allowedOrigins';

export interface NextStep {
  operation: string;
  input?: Record<string, unknown>;
}

export class MailboxError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly next?: NextStep;
  readonly docsUrl?: string;
  readonly status?: number;
  /** Structured extras for the agent (e.g. the failed JMAP calls); never secrets. */
  readonly details?: Record<string, unknown>;

  constructor(
    init: Pick<MailboxError, 'code' | 'message' | 'hint' | 'next' | 'docsUrl' | 'status' | 'details'> & {
      cause?: unknown;
    },
  ) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'MailboxError';
    this.code = init.code;
    this.hint = init.hint;
    if (init.next) this.next = init.next;
    if (init.docsUrl) this.docsUrl = init.docsUrl;
    if (init.status !== undefined) this.status = init.status;
    if (init.details) this.details = init.details;
  }

  toJSON(): Record<string, unknown> {
    const { code, message, hint, next, docsUrl, status, details } = this;
    const fields = { code, message, hint, next, docsUrl, status, details };
    return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  }
}

export function toMailboxError(error: unknown): MailboxError {
  if (error instanceof MailboxError) return error;
  if (error instanceof Error && error.name === 'AbortError')
    return new MailboxError({
      code: 'cancelled',
      message: 'The operation was cancelled before it finished.',
      hint: 'Nothing was lost; run it again when ready.',
      cause: error,
    });
  const text = error instanceof Error ? error.message : String(error);
  return new MailboxError({
    code: 'internal',
    message: `Unexpected internal error: ${text}`,
    hint: 'Run again with AGENT_MAILBOX_DEBUG=1 to see details on stderr, and report it if it repeats.',
    cause: error,
  });
}
