import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/**
 * "Resource not found" is -32002 in MCP 2025-11-25 and -32602 with the URI in `data` in 2026-07-28
 * (SEP-2164). The SDK answers -32602 in both eras, so a 2025-era answer is rewritten as it leaves:
 * an error whose `data` is exactly `{ uri }` is the SDK's ResourceNotFoundError, nothing else.
 */
export function answerResourceNotFoundByEra<T extends Transport>(wire: T, isLegacyEra: () => boolean): T {
  const send = wire.send.bind(wire);
  wire.send = (message, options) => send(isLegacyEra() ? withLegacyCode(message) : message, options);
  return wire;
}

const invalidParams = -32602;
const resourceNotFound2025 = -32002;

function withLegacyCode(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || message.error.code !== invalidParams) return message;
  const data: unknown = message.error.data;
  const isNotFound =
    typeof data === 'object' &&
    data !== null &&
    Object.keys(data).length === 1 &&
    typeof (data as { uri?: unknown }).uri === 'string';
  return isNotFound ? { ...message, error: { ...message.error, code: resourceNotFound2025 } } : message;
}
