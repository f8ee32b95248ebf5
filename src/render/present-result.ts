import type { NextStep } from '../errors.js';
import { redactDeep, redactSecrets } from '../redact.js';
import { describeNext, wordInputs, type NextWording } from './describe-next.js';
import type { FrontDoor } from './front-door.js';
import { isRecord } from '../is-record.js';

/**
 * A `present` hook's answer: `text`, the whole text a person or model reads, else `lead` lines over the
 * compact JSON. `isError`: the call completed but reports a failure (JMAP method errors come in a 200).
 */
export interface Presentation {
  text?: string;
  lead?: string[];
  isError?: boolean;
}

/** An operation's present hook, typed by its output; `describe` words a next step for the door. */
export type Present<R = unknown> = {
  // A method's parameters are bivariant, so entries typed by their own output pass as Present<unknown>;
  // a door calls a hook only with its own operation's result.
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
  if (json.length > largeResultChars)
    lines.push(
      `This result is ${Math.round(json.length / 1024)} KB. To narrow it, ask for fewer records (a smaller LIMIT or "limit"), fewer "properties", or read one message with the read_message preset.`,
    );
  lines.push(json);
  return { text: lines.join('\n'), isPresented: false, lead, structured, isError };
}

function withWordedNext(result: unknown, door: FrontDoor, wording: NextWording): unknown {
  if (!isRecord(result) || !Array.isArray(result.next)) return result;
  const next = result.next.map((item: unknown) => {
    if (typeof item === 'string') return wordInputs(item, door, wording.cli);
    const isNextStep = isRecord(item) && typeof item.operation === 'string';
    return isNextStep && wording.adjust ? wording.adjust(item as unknown as NextStep) : item;
  });
  return { ...result, next };
}
