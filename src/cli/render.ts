import type { MailboxError } from '../errors.js';
import type { NextWording } from '../render/describe-next.js';
import { renderError as renderErrorForDoor, exitCodes } from '../render/render-error.js';
import type { RenderedResult } from '../render/present-result.js';

/** The only module of the CLI that writes results: JSON on stdout, lead lines and error text on stderr. */

export { exitCodes };

export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** A presentation's own text on stdout, else lead lines on stderr over JSON (compact with --json). */
export function renderSuccess(streams: CliStreams, rendered: RenderedResult, options: { json: boolean }): number {
  if (rendered.isPresented && !options.json) {
    streams.stdout.write(rendered.text.endsWith('\n') ? rendered.text : `${rendered.text}\n`);
  } else {
    for (const line of rendered.lead) streams.stderr.write(`${line}\n`);
    streams.stdout.write(
      `${options.json ? JSON.stringify(rendered.structured) : JSON.stringify(rendered.structured, null, 2)}\n`,
    );
  }
  return rendered.isError ? exitCodes.failure : exitCodes.ok;
}

/** The fields as JSON on stdout, the message and next step on stderr; returns the exit code. */
export function renderError(streams: CliStreams, error: MailboxError, wording?: NextWording): number {
  const rendered = renderErrorForDoor(error, 'cli', wording);
  streams.stdout.write(`${JSON.stringify(rendered.structured, null, 2)}\n`);
  streams.stderr.write(`${rendered.text}\n`);
  return rendered.exitCode;
}
