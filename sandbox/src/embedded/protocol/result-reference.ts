import { MethodError } from './method-error.js';

/** A method response as it sits in methodResponses. */
export type Invocation = [string, Record<string, unknown>, string];

/**
 * Replaces `#name` arguments with values taken from earlier responses (RFC 8620 §3.7).
 * Only top-level arguments are references; anything nested stays as written.
 */
export function resolveReferences(args: Record<string, unknown>, responses: Invocation[]): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (!key.startsWith('#')) {
      resolved[key] = value;
      continue;
    }
    const name = key.slice(1);
    if (name in args) throw new MethodError('invalidArguments', `Both "${name}" and "#${name}" are given; use one.`);
    resolved[name] = resolveOne(value, responses, key);
  }
  return resolved;
}

function resolveOne(reference: unknown, responses: Invocation[], key: string): unknown {
  if (typeof reference !== 'object' || reference === null)
    throw invalidReference(`${key} must be a ResultReference object.`);
  const { resultOf, name, path } = reference as Record<string, unknown>;
  if (typeof resultOf !== 'string' || typeof name !== 'string' || typeof path !== 'string') {
    throw invalidReference(`${key} needs string resultOf, name and path.`);
  }
  // The first response with that call id (RFC 8620 §3.7: "the first response with the method call id").
  const source = responses.find((response) => response[2] === resultOf);
  if (!source) throw invalidReference(`${key}: no earlier method call has id "${resultOf}".`);
  if (source[0] !== name) throw invalidReference(`${key}: call "${resultOf}" answered ${source[0]}, not ${name}.`);
  return evaluatePointer(source[1], path, key);
}

/** Evaluates a JSON Pointer (RFC 6901) with JMAP's `*` array mapping (RFC 8620 §3.7). */
export function evaluatePointer(value: unknown, path: string, key = 'path'): unknown {
  if (path === '') return value;
  if (!path.startsWith('/')) throw invalidReference(`${key}: path "${path}" must start with "/".`);
  const tokens = path
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
  return walk(value, tokens, path, key);
}

function walk(value: unknown, tokens: string[], path: string, key: string): unknown {
  const [token, ...rest] = tokens;
  if (token === undefined) return value;
  if (Array.isArray(value)) {
    if (token === '*') {
      return value.flatMap((item) => {
        const mapped = walk(item, rest, path, key);
        return Array.isArray(mapped) ? mapped : [mapped];
      });
    }
    if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= value.length)
      throw invalidReference(`${key}: path "${path}" does not exist.`);
    return walk(value[Number(token)], rest, path, key);
  }
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, token)) {
    return walk((value as Record<string, unknown>)[token], rest, path, key);
  }
  throw invalidReference(`${key}: path "${path}" does not exist in the referenced result.`);
}

function invalidReference(description: string): MethodError {
  return new MethodError('invalidResultReference', description);
}
