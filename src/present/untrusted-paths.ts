import { isRecord } from '../is-record.js';

/**
 * Which values of a jmap_request result were written by others, as paths such as
 * `response.methodResponses[1][1].list[*].subject`: the machine-readable statement of what not to trust.
 */

const addressFields = new Set(['from', 'to', 'cc', 'bcc', 'replyTo', 'sender']);
const bodyPartFields = new Set(['textBody', 'htmlBody', 'attachments', 'bodyStructure']);
const mailMethods = /^(Email|SearchSnippet|Thread)\//;

/** The untrusted paths of a result (its `response` and every step's `response`), sorted. */
export function untrustedPaths(result: { response?: unknown; steps?: { response?: unknown }[] }): string[] {
  const found = new Set<string>();
  responsePaths(result.response, 'response', found);
  result.steps?.forEach((step, i) => responsePaths(step.response, `steps[${i}].response`, found));
  return [...found].sort();
}

function responsePaths(response: unknown, base: string, found: Set<string>): void {
  if (!isRecord(response) || !Array.isArray(response.methodResponses)) return;
  response.methodResponses.forEach((invocation, i) => {
    if (!Array.isArray(invocation)) return;
    const [name, args] = invocation as [unknown, unknown];
    if (typeof name !== 'string' || !mailMethods.test(name) || !isRecord(args) || !Array.isArray(args.list)) return;
    for (const item of args.list) emailPaths(item, `${base}.methodResponses[${i}][1].list[*]`, found);
  });
}

function emailPaths(item: unknown, base: string, found: Set<string>): void {
  if (!isRecord(item)) return;
  for (const [key, value] of Object.entries(item)) {
    const path = `${base}.${key}`;
    if ((key === 'subject' || key === 'preview') && typeof value === 'string') found.add(path);
    else if (key === 'bodyValues' && isRecord(value)) found.add(`${path}.*.value`);
    else if (addressFields.has(key) && Array.isArray(value)) {
      // A sender picks both: the display name and the address (its local part can carry any text).
      found.add(`${path}[*].name`);
      found.add(`${path}[*].email`);
    } else if (key === 'headers' && Array.isArray(value)) found.add(`${path}[*].value`);
    else if (key.startsWith('header:') && value !== null) found.add(path);
    else if (bodyPartFields.has(key) && value !== null) partPaths(value, path, found);
  }
}

function partPaths(value: unknown, path: string, found: Set<string>): void {
  const parts = Array.isArray(value) ? value : [value];
  const base = Array.isArray(value) ? `${path}[*]` : path;
  for (const part of parts) {
    if (!isRecord(part)) continue;
    if (typeof part.name === 'string') found.add(`${base}.name`);
    if (Array.isArray(part.headers)) found.add(`${base}.headers[*].value`);
    if (part.subParts !== undefined) partPaths(part.subParts, `${base}.subParts`, found);
  }
}
