import type { MailboxError } from '../errors.js';
import { renderError as renderErrorForDoor, exitCodes } from '../render/render-error.js';
import type { RenderedResult } from '../render/present-result.js';

/**
 * The only module of the CLI that writes results, from the shared renderer (src/render/): the
 * structured value as JSON on stdout for programs, the lead lines and error text on stderr.
 */

export { exitCodes };

export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Prints a success: lead lines on stderr, JSON on stdout, or one text field as plain text. */
export function renderSuccess(streams: CliStreams, rendered: Pick<RenderedResult, 'lead' | 'structured' | 'isError'>, textField?: string): number {
  for (const line of rendered.lead) streams.stderr.write(`${line}\n`);
  const value = rendered.structured;
  if (textField && textField in value) {
    const text = String(value[textField]);
    streams.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  } else {
    streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
  return rendered.isError ? exitCodes.failure : exitCodes.ok;
}

/** Prints an error: the fields as JSON on stdout, the message and next step on stderr; returns the exit code. */
export function renderError(streams: CliStreams, error: MailboxError): number {
  const rendered = renderErrorForDoor(error, 'cli');
  streams.stdout.write(`${JSON.stringify(rendered.structured, null, 2)}\n`);
  streams.stderr.write(`${rendered.text}\n`);
  return rendered.exitCode;
}
