import type { FrontDoor } from './front-door.js';

/**
 * What an operation's `present` hook returns: lines that lead the text a person or model reads,
 * the structured value (the result itself unless the hook must fence it), and whether the result
 * reports a failure although the call completed (e.g. JMAP method errors inside HTTP 200).
 */
export interface Presentation {
  lead: string[];
  structured?: Record<string, unknown>;
  isError?: boolean;
}

export type Present = (result: unknown, door: FrontDoor) => Presentation;

/** A success as both doors show it. */
export interface RenderedResult {
  /** Lead lines, then a note for large results, then the JSON. */
  text: string;
  lead: string[];
  structured: Record<string, unknown>;
  isError: boolean;
}

/** Results above this size (≈ 15k tokens) get a note on how to narrow them; nothing is cut. */
export const largeResultChars = 60_000;

/** The one renderer of successes; without a hook the result is shown as compact JSON. */
export function renderResult(result: unknown, door: FrontDoor, present?: Present): RenderedResult {
  const shown = present?.(result, door);
  const structured = shown?.structured ?? (isRecord(result) ? result : { result });
  const lead = shown?.lead ?? [];
  const json = JSON.stringify(structured);
  const lines = [...lead];
  if (json.length > largeResultChars) {
    lines.push(
      `This result is ${Math.round(json.length / 1024)} KB. To narrow it, ask for fewer records (a smaller LIMIT or "limit"), fewer "properties", or read one message with the read_message preset.`,
    );
  }
  lines.push(json);
  return { text: lines.join('\n'), lead, structured, isError: shown?.isError ?? false };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
