import type { ErrorCode, MailboxError } from '../errors.js';
import { redactCredentialEcho, redactDeep } from '../redact.js';
import { describeNext, wordInputs, type NextWording } from './describe-next.js';
import type { FrontDoor } from './front-door.js';

/**
 * Exit codes of the CLI: 0 ok, 1 failure (including any refusal from a server), 2 usage, 3 refused
 * by the operator's policy (or a change to it that needs the operator at a terminal).
 */
export const exitCodes = { ok: 0, failure: 1, usage: 2, policy: 3 } as const;

export const policyCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['policy_refused', 'operator_required']);

export const inputCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'usage',
  'invalid_input',
  'attachment_invalid',
  'username_invalid',
  'vars_invalid',
  'vars_missing',
  'ops_invalid',
  'help_topic_unknown',
  'preset_unknown',
  'sandbox_in_default_dir',
  'credentials_wrong_service',
  'sandbox_settings_missing',
]);

/** 2 only for bad input caught here before any network; a server's answer (it has a status) is 1. */
export function exitCodeOf(error: MailboxError): number {
  if (policyCodes.has(error.code)) return exitCodes.policy;
  return inputCodes.has(error.code) && error.status === undefined ? exitCodes.usage : exitCodes.failure;
}

/** The one renderer of failures: every field passes the redactor (a server may quote a token back). */
export function renderError(
  error: MailboxError,
  door: FrontDoor,
  wording: NextWording = {},
): { text: string; structured: { error: Record<string, unknown> }; exitCode: number } {
  const nextStep = error.next && wording.adjust ? wording.adjust(error.next) : error.next;
  const fields: Record<string, unknown> = redactDeep(
    { ...error.toJSON(), ...(nextStep ? { next: nextStep } : {}) },
    redactCredentialEcho,
  );
  const next = nextStep ? redactCredentialEcho(describeNext(nextStep, door, wording)) : undefined;
  const message = redactCredentialEcho(wordInputs(error.message, door, wording.cli));
  const hint = redactCredentialEcho(wordInputs(error.hint, door, wording.cli));
  const lines =
    door === 'cli'
      ? [`error: ${message}`, `next: ${hint}${next ? `\n  ${next}` : ''}`]
      : [message, `Next: ${hint}${next ? ` — ${next}` : ''}`];
  if (error.details) lines.push(JSON.stringify({ details: fields.details }));
  const nextKey = door === 'cli' ? 'nextCommand' : 'nextCall';
  return {
    text: lines.join('\n'),
    structured: { error: { ...fields, message, hint, ...(next ? { [nextKey]: next } : {}) } },
    exitCode: exitCodeOf(error),
  };
}
