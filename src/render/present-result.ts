import type { NextStep } from '../errors.js';
import { redactDeep, redactSecrets } from '../redact.js';
import { describeNext, wordInputs, type NextWording } from './describe-next.js';
import type { FrontDoor } from './front-door.js';
import { isRecord } from '../is-record.js';

/**
 * What an operation's `present` hook returns: `text`, the whole text a person or model reads, else
 * `lead` lines over the result as compact JSON. `isError`: the call completed but reports a failure
 * (JMAP method errors arrive inside HTTP 200, RFC 8620 §3.6.2).
 */
export interface Presentation {
  text?: string;
  lead?: string[];
  isError?: boolean;
}

/**
 * An operation's present hook, typed by its output; `describe` words a next step for the door. It may
 * answer later: a hook that loads its presenter on first use keeps that code out of every start.
 */
export type Present<R = unknown> = {
  // A method's parameters are bivariant: the table's entries, each typed by its own output, are
  // handed to the doors as Present<unknown>; a door calls a hook only with its own operation's
  // result, which the output schema has checked.
  present(result: R, door: FrontDoor, describe: (next: NextStep) => string): Presentation | Promise<Presentation>;
}['present'];

/** A success as both doors show it, already passed through the redactor. */
export interface RenderedResult {
  text: string;
  /** True when `text` is a presentation of its own rather than lead lines over the JSON. */
  isPresented: boolean;
  lead: string[];
  /** The exact result for programs (MCP structuredContent, CLI --json). */
  structured: Record<string, unknown>;
  isError: boolean;
}

/** Results above this size (≈ 15k tokens) get a note on how to narrow them; nothing is cut. */
export const largeResultChars = 60_000;

/** The one renderer of successes for both doors; every string leaves through the redactor. */
export async function renderResult(
  given: unknown,
  door: FrontDoor,
  options: {
    present?: Present | undefined;
    /** Top-level fields the operator asked to see in full (`register --show-api-key`): they bypass the redactor. */
    reveal?: readonly string[] | undefined;
    wording?: NextWording | undefined;
  } = {},
): Promise<RenderedResult> {
  const wording = options.wording ?? {};
  const result = withWordedNext(given, door, wording);
  // Steps of the result are adjusted already; adjusting twice changes nothing (it fills in only what is missing).
  const describe = (next: NextStep): string => describeNext(next, door, wording);
  const shown = (await options.present?.(result, door, describe)) ?? {};
  const exact = isRecord(result) ? result : { result };
  const structured = redactDeep(exact);
  for (const key of options.reveal ?? []) if (key in exact) structured[key] = exact[key];
  const lead = (shown.lead ?? []).map((line) => redactSecrets(line));
  const isError = shown.isError ?? false;
  if (shown.text !== undefined)
    return { text: redactSecrets(shown.text), isPresented: true, lead, structured, isError };
  const json = JSON.stringify(structured);
  const lines = [...lead];
  if (json.length > largeResultChars) {
    lines.push(
      `This result is ${Math.round(json.length / 1024)} KB. To narrow it, ask for fewer records (a smaller LIMIT or "limit"), fewer "properties", or read one message with the read_message preset.`,
    );
  }
  lines.push(json);
  return { text: lines.join('\n'), isPresented: false, lead, structured, isError };
}

function withWordedNext(result: unknown, door: FrontDoor, wording: NextWording): unknown {
  if (!isRecord(result) || !Array.isArray(result.next)) return result;
  const next = result.next.map((item: unknown) => {
    if (typeof item === 'string') return wordInputs(item, door, wording.cli);
    return isNextStep(item) && wording.adjust ? wording.adjust(item) : item;
  });
  return { ...result, next };
}

function isNextStep(value: unknown): value is NextStep {
  return isRecord(value) && typeof value.operation === 'string';
}
