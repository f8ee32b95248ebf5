import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { MailboxError } from '../errors.js';
import type { NextWording } from '../render/describe-next.js';
import { renderResult, type Present } from '../render/present-result.js';
import { renderError as renderErrorForDoor } from '../render/render-error.js';

/** The SDK's default catch keeps only `message`: every failure comes through here with its code, hint and next step. */

/** The `error` member every tool's advertised output schema carries, so error results validate. */
export const mcpErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  hint: z.string(),
  next: z.looseObject({ operation: z.string(), input: z.record(z.string(), z.unknown()).optional() }).optional(),
  nextCall: z.string().optional(),
});

export function renderError(error: MailboxError, wording?: NextWording): CallToolResult {
  const rendered = renderErrorForDoor(error, 'mcp', wording);
  return { isError: true, content: [{ type: 'text', text: rendered.text }], structuredContent: rendered.structured };
}

export async function renderSuccess(
  result: unknown,
  present?: Present,
  wording?: NextWording,
): Promise<CallToolResult> {
  const rendered = await renderResult(result, 'mcp', { present, wording });
  return {
    content: [{ type: 'text', text: rendered.text }, ...savedFileLinks(result)],
    structuredContent: rendered.structured,
    ...(rendered.isError ? { isError: true } : {}),
  };
}

// jmap_request's download.
const savedFile = z.object({ saved: z.object({ path: z.string(), size: z.number(), type: z.string() }) });

/** A file the call saved, also as a `resource_link` a host can offer the user; nothing is read here. */
function savedFileLinks(result: unknown): ResourceLink[] {
  const parsed = savedFile.safeParse(result);
  if (!parsed.success) return [];
  const { path, size, type } = parsed.data.saved;
  return [{ type: 'resource_link', uri: pathToFileURL(path).href, name: basename(path), mimeType: type, size }];
}
