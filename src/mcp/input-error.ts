import type * as z from 'zod';
import { MailboxError, inputRef, type ErrorCode } from '../errors.js';
import { inputErrorCodes } from '../operations/define-operation.js';

/** Refused arguments as the project's error (which, what is wrong, what to do), not the SDK's bare -32602. */
export function inputError(op: { name: string; input: z.ZodObject }, error: z.ZodError): MailboxError {
  const keys = [...new Set(error.issues.map((issue) => String(issue.path[0] ?? '')).filter((key) => key !== ''))];
  const problems = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the arguments';
    return `${where}: ${issue.message}`;
  });
  const named = keys.length > 0 ? keys.map((key) => inputRef(key)).join(', ') : 'the arguments';
  return new MailboxError({
    code: codeFor(op.input, keys) ?? 'invalid_input',
    message: `${op.name} cannot take these arguments: ${problems.join('; ')}.`,
    hint: `Correct ${named} as the tool's input schema describes and call ${op.name} again (help topic "tools" explains every argument).`,
    next: { operation: 'help', input: { topic: 'tools' } },
  });
}

/** The more telling code a refused field declares (inputErrorCodes), when exactly one field is at fault. */
function codeFor(input: z.ZodObject, keys: readonly string[]): ErrorCode | undefined {
  if (keys.length !== 1) return undefined;
  let field: unknown = input.shape[keys[0] as string];
  while (field) {
    const declared = inputErrorCodes.get(field as z.ZodType);
    if (declared) return declared.code;
    field = (field as { unwrap?: () => unknown }).unwrap?.();
  }
  return undefined;
}
