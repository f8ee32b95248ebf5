import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTableCommand, type ParsedInvocation } from '../../../src/cli/program.js';
import { defineOperation } from '../../../src/operations/define-operation.js';

/** A table entry with a plain number input, as the MCP door's JSON gives it. */
const waiting = defineOperation({
  name: 'wait-a-while',
  title: 'Wait',
  description: 'Waits.',
  input: z.object({ wait_seconds: z.number().int().min(10).optional(), label: z.string().optional() }),
  output: z.object({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  doors: ['cli'],
  cli: { hidden: ['wait_seconds'] },
  run: async () => ({}),
});

async function parse(args: string[]): Promise<ParsedInvocation> {
  let seen: ParsedInvocation | undefined;
  const command = buildTableCommand(waiting as never, async (invocation) => {
    seen = invocation;
  });
  await command.parseAsync(args, { from: 'user' });
  if (!seen) throw new Error('the command did not run');
  return seen;
}

describe('number flags', () => {
  it('reads a number flag as the number, which the plain number schema takes', async () => {
    const { input } = await parse(['--wait-seconds', '12']);
    expect(input).toEqual({ wait_seconds: 12 });
    expect(waiting.input.safeParse(input).success).toBe(true);
  });

  it('leaves what is no number as text, for the schema to refuse, and a text flag as text', async () => {
    for (const text of ['12s', '', '0x10', '1e3', 'twelve']) {
      const { input } = await parse(['--wait-seconds', text]);
      expect(input['wait_seconds']).toBe(text);
      expect(waiting.input.safeParse(input).success).toBe(false);
    }
    expect((await parse(['--label', '42'])).input).toEqual({ label: '42' });
  });
});
