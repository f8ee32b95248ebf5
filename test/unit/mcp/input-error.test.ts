import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inputErrorCodes } from '../../../src/operations/define-operation.js';
import { inputError } from '../../../src/mcp/server.js';

const op = {
  name: 'probe',
  input: z.object({
    topic: z.enum(['a', 'b']).optional().describe('A topic.').register(inputErrorCodes, { code: 'help_topic_unknown' }),
    count: z.number().int().optional(),
  }),
};

function refused(args: unknown): ReturnType<typeof inputError> {
  const parsed = op.input.safeParse(args);
  if (parsed.success) throw new Error('expected the schema to refuse the arguments');
  return inputError(op, parsed.error);
}

describe('arguments a tool schema refuses, as the project error', () => {
  it('names the argument and what is wrong with it, and points to the argument docs', () => {
    const error = refused({ count: 1.5 });
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe(
      'probe cannot take these arguments: count: Invalid input: expected int, received number.',
    );
    expect(error.hint).toBe(
      'Correct ⟦count⟧ as the tool\'s input schema describes and call probe again (help topic "tools" explains every argument).',
    );
    expect(error.next).toEqual({ operation: 'help', input: { topic: 'tools' } });
  });

  it('uses the code a field declares, through optional and described wrappers', () => {
    expect(refused({ topic: 'zz' }).code).toBe('help_topic_unknown');
  });

  it('stays invalid_input when more than one field is at fault', () => {
    const error = refused({ topic: 'zz', count: 'x' });
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/topic: .*; count: /);
  });
});
