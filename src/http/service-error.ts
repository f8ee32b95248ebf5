import * as z from 'zod';
import { MailboxError, type ErrorCode, inputRef, settingRef } from '../errors.js';
import { redactCredentialEcho } from '../redact.js';
import { jsonOrUndefined } from './parse-json-bytes.js';

/** Spec §7.2: the proof-of-work endpoints' error body. */
const serviceErrorBody = z.object({
  error: z.looseObject({ message: z.string(), hint: z.string().optional(), docs_url: z.string().optional() }),
});

/** RFC 8620 §3.6.1 / RFC 7807 problem details, as the JMAP host answers request-level errors. */
const problemDetails = z.looseObject({
  type: z.string().optional(),
  detail: z.string().optional(),
  title: z.string().optional(),
});

type StatusCode = Extract<
  ErrorCode,
  'auth_rejected' | 'username_taken' | 'invalid_input' | 'rate_limited' | 'server_error' | 'bad_response'
>;

/** The error code for a final HTTP status (only statuses that are not retried or retries ran out). */
export function codeForStatus(status: number): StatusCode {
  if (status === 401 || status === 403) return 'auth_rejected';
  if (status === 409) return 'username_taken';
  if (status === 400 || status === 422) return 'invalid_input';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'bad_response';
}

const fallbackHints: Record<StatusCode, string> = {
  auth_rejected: 'The service refused the credentials; run register again (same username) or check the stored apiKey.',
  username_taken: `Choose another username and call register again with it. If this inbox is yours, register with its apiKey (${inputRef('api_key')}) instead.`,
  invalid_input: 'Correct the request as the message says and send it again.',
  rate_limited: 'Wait a minute before trying again.',
  server_error: 'The service has a problem on its side; try again in a few minutes.',
  bad_response: 'Check that the configured auth/API URLs point at the Agent Mailbox Service.',
};

/** A non-2xx answer as a MailboxError: the service's own message and hint (spec §7.2), plus status and endpoint. */
export function serviceError(status: number, bodyText: string, where: string): MailboxError {
  const code = codeForStatus(status);
  const parsed = jsonOrUndefined({ json: () => JSON.parse(bodyText) });
  const service = serviceErrorBody.safeParse(parsed);
  if (service.success) {
    const { message, hint, docs_url: docsUrl } = service.data.error;
    return new MailboxError({
      code,
      status,
      message: `${redactCredentialEcho(message)} (HTTP ${status} from ${where})`,
      hint: ownHint(code, hint),
      ...(docsUrl ? { docsUrl } : {}),
    });
  }
  const problem = problemDetails.safeParse(parsed);
  const detail = problem.success ? (problem.data.detail ?? problem.data.title ?? problem.data.type) : undefined;
  const text = redactCredentialEcho(detail ?? bodyText.trim().slice(0, 300));
  return new MailboxError({
    code,
    status,
    message: `HTTP ${status} from ${where}${text ? `: ${text}` : ''}`,
    hint: fallbackHints[code],
  });
}

/** An auth-host answer that is not what the service sends: most likely the setting points elsewhere. */
export function unexpectedAnswer(message: string): MailboxError {
  return new MailboxError({
    code: 'bad_response',
    message,
    hint: `Check that ${settingRef('authUrl')} points at the Agent Mailbox Service.`,
  });
}

/** The service's hints speak to raw HTTP clients ("POST /api/v1/challenge"): those become our own register hint. */
function ownHint(code: StatusCode, hint: string | undefined): string {
  if (hint && !/\/api\/v\d|\bPOST\b|same challenge|fresh challenge/i.test(hint)) return redactCredentialEcho(hint);
  return fallbackHints[code];
}
