import { HostedToolError } from '../tools/hosted-tool-error.js';
import type { MethodCall } from './mail-store-client.js';

/** The arguments of the response to call `callId`; a method error becomes a tool error naming it. */
export function responseOf(responses: readonly MethodCall[], callId: string): Record<string, unknown> {
  const found = responses.find((response) => response[2] === callId);
  if (!found)
    throw new HostedToolError(
      'jmap_error',
      `The mail store gave no answer to call ${callId}.`,
      'Try again; if it repeats, the sandbox log on stderr has the details.',
    );
  if (found[0] === 'error')
    throw new HostedToolError(
      'jmap_error',
      `The mail store refused the request: ${describeSetError(found[1])}.`,
      'Check the input and try again.',
    );
  return found[1];
}

/** The first record a /set call did not create, as `type: description`; undefined when all went through. */
export function firstSetFailure(args: Record<string, unknown>): string | undefined {
  for (const key of ['notCreated', 'notUpdated', 'notDestroyed']) {
    const failures = args[key];
    if (failures && typeof failures === 'object') {
      const first = Object.values(failures as Record<string, unknown>)[0];
      if (first !== undefined) return describeSetError(first);
    }
  }
  return undefined;
}

/** `type: description` of a JMAP error object, shortened. */
export function describeSetError(error: unknown): string {
  const record = (error ?? {}) as Record<string, unknown>;
  const type = typeof record['type'] === 'string' ? record['type'] : 'error';
  const description = typeof record['description'] === 'string' ? `: ${record['description'].slice(0, 300)}` : '';
  return `${type}${description}`;
}
