import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { MailboxError, NextStep } from '../errors.js';
import { presentJmapResult } from '../jmap/present-jmap-result.js';
import type { JmapRequestResult } from '../jmap/run-jmap-request.js';
import { redactDeep, redactSecrets } from '../redact.js';

/**
 * The only module of the MCP front door that shapes results. Success: `structuredContent` plus the
 * same JSON in a text block. Failure: one `renderError`, so our code/hint/next reach the model
 * instead of the SDK's default catch, which keeps only `message`.
 */

/** Results above this size (≈ 15k tokens) get a note on how to narrow them; nothing is cut. */
export const largeResultChars = 60_000;

/** The `error` member every tool's advertised output schema carries, so error results validate. */
export const mcpErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  hint: z.string(),
  next: z.looseObject({ operation: z.string(), input: z.record(z.string(), z.unknown()).optional() }).optional(),
  nextCall: z.string().optional(),
});

// A JMAP request result (src/jmap/run-jmap-request.ts): leads with its summary, fails on ok:false.
const jmapResultShape = z.looseObject({
  ok: z.boolean(),
  summary: z.string(),
  dryRun: z.boolean(),
});

/** Words a table step the MCP way: "call `register` with {…}". */
export function describeNextForMcp(next: NextStep): string {
  const input = Object.fromEntries(Object.entries(next.input ?? {}).filter(([, value]) => value !== undefined));
  return Object.keys(input).length > 0
    ? `call \`${next.operation}\` with ${JSON.stringify(input)}`
    : `call \`${next.operation}\``;
}

/** Renders any failure: isError, "message / Next: …" text, and the fields in structuredContent.error. */
export function renderError(error: MailboxError): CallToolResult {
  const fields = redactDeep(error.toJSON()) as Record<string, unknown>;
  const nextCall = error.next ? describeNextForMcp(error.next) : undefined;
  const lines = [redactSecrets(error.message), `Next: ${redactSecrets(error.hint)}${nextCall ? ` — ${nextCall}` : ''}`];
  if (error.details) lines.push(JSON.stringify({ details: fields.details }));
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error: { ...fields, ...(nextCall ? { nextCall } : {}) } },
  };
}

/**
 * Renders an operation's success. A JMAP result: structuredContent is the result exactly as the
 * server's values came (with its `untrusted` paths); the text is the compact presentation with mail
 * content fenced once per message; calls that failed make it an isError result.
 */
export function renderSuccess(result: unknown): CallToolResult {
  const structured: Record<string, unknown> = isRecord(result) ? result : { result };
  // Help returns Markdown: the text block is that Markdown, not an escaped JSON string.
  if (typeof structured.topic === 'string' && typeof structured.text === 'string' && Array.isArray(structured.topics)) {
    return { content: [{ type: 'text', text: structured.text }], structuredContent: structured };
  }
  if (!jmapResultShape.safeParse(structured).success) return textResult(structured, []);

  const presented = presentJmapResult(structured as JmapRequestResult, 'mcp', { describeNext: describeNextForMcp });
  const text = redactSecrets(presented.text);
  if (!presented.isFailure) return { content: [{ type: 'text', text }], structuredContent: structured };
  // Method- and record-level errors arrive inside HTTP 200 (RFC 8620 §3.6.2, spec §7.3):
  // the SDK cannot know, so the call is flagged here with the summary as the error message.
  const error = {
    code: 'jmap_method_error',
    message: String(structured.summary),
    hint: 'Fix the failed calls listed in "failures" and send again; help topic "jmap" explains each error type.',
    next: { operation: 'help', input: { topic: 'jmap' } },
  };
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { ...structured, error } };
}

function textResult(value: Record<string, unknown>, lead: string[]): CallToolResult {
  const json = JSON.stringify(value, null, 2);
  const lines = [...lead];
  if (json.length > largeResultChars) {
    lines.push(
      `This result is ${Math.round(json.length / 1024)} KB. To narrow it, ask for fewer records (a smaller LIMIT or "limit"), fewer "properties", or read one message with the read_message preset.`,
    );
  }
  lines.push(json);
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
