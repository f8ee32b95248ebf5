import type { MailboxError, NextStep } from '../errors.js';
import { redactDeep, redactSecrets } from '../redact.js';
import { toKebab } from './zod-fields.js';

/** The only module of the CLI that writes results: JSON on stdout, human text on stderr. */

export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Exit codes: 0 ok, 1 failure, 2 usage. */
export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;

const usageCodes = new Set(['usage', 'invalid_input', 'watch_required', 'username_invalid', 'vars_invalid', 'ops_invalid', 'help_topic_unknown', 'preset_unknown']);

/** Words a table step as a shell command line. */
export function describeNextForCli(next: NextStep): string {
  const parts = ['agent-mailbox', next.operation];
  for (const [key, value] of Object.entries(next.input ?? {})) {
    if (value === undefined) continue;
    if (key === 'topic') parts.push(String(value));
    else parts.push(`--${toKebab(key)}`, typeof value === 'string' ? shellQuote(value) : shellQuote(JSON.stringify(value)));
  }
  return parts.join(' ');
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Prints a success: JSON on stdout, or one text field as plain text. */
export function renderSuccess(streams: CliStreams, result: unknown, textField?: string): void {
  if (textField && result && typeof result === 'object' && textField in result) {
    const text = String((result as Record<string, unknown>)[textField]);
    streams.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  streams.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/** Prints an error: the fields as JSON on stdout, two human lines on stderr; returns the exit code. */
export function renderError(streams: CliStreams, error: MailboxError): number {
  const next = error.next ? describeNextForCli(error.next) : undefined;
  // Errors may carry server text that echoes secrets: the same redactor as the MCP door (issue 10).
  streams.stdout.write(`${JSON.stringify({ error: redactDeep({ ...error.toJSON(), ...(next ? { nextCommand: next } : {}) }) }, null, 2)}\n`);
  streams.stderr.write(redactSecrets(`error: ${error.message}\nnext: ${error.hint}${next ? `\n  ${next}` : ''}`) + '\n');
  return usageCodes.has(error.code) ? exitCodes.usage : exitCodes.failure;
}
