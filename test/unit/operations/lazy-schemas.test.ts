import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineLazyOperation } from '../../../src/operations/define-operation.js';
import { operations } from '../../../src/operations/index.js';
import { inboxChoiceCarrier } from '../../../src/render/carry-inbox-choice.js';

// Every start imports the whole table; a CLI command reads one entry's schemas. Entries defined
// lazily build theirs on first read, once, and read like any other entry.
function countedEntry() {
  let builds = 0;
  const op = defineLazyOperation({
    name: 'counted',
    title: 'Counted',
    description: 'An entry that counts how often its schemas are built.',
    schemas: () => {
      builds++;
      return {
        input: z.object({ credentials_dir: z.string().optional() }),
        output: z.object({ ok: z.boolean() }),
        cliInput: z.object({ show: z.boolean().optional() }),
      };
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: () => Promise.resolve({ ok: true }),
  });
  return { op, builds: () => builds };
}

describe('lazily defined table entries', () => {
  it('build no schema until one is read, then all of them once', () => {
    const { op, builds } = countedEntry();
    expect([op.name, op.title, op.annotations.readOnlyHint]).toEqual(['counted', 'Counted', true]);
    expect(builds()).toBe(0);
    const input = op.input;
    expect(builds()).toBe(1);
    expect(op.input).toBe(input);
    expect(op.output.safeParse({ ok: true }).success).toBe(true);
    expect(op.cliInput?.shape).toHaveProperty('show');
    expect(builds()).toBe(1);
  });

  it('read as plain entries: schemas enumerable, the builder not exposed', () => {
    const { op } = countedEntry();
    expect(Object.keys(op)).toEqual(expect.arrayContaining(['name', 'input', 'output', 'cliInput', 'run']));
    expect(Object.keys(op)).not.toContain('schemas');
    expect(op.input.safeParse({ credentials_dir: 7 }).success).toBe(false);
  });

  it('the inbox carrier reads no entry until a call carries a choice', () => {
    const { op, builds } = countedEntry();
    const carry = inboxChoiceCarrier([op]);
    expect(carry(undefined, undefined)).toBeUndefined();
    expect(builds()).toBe(0);
    const adjust = carry('/tmp/inbox-b');
    expect(builds()).toBe(0);
    expect(adjust?.({ operation: 'counted', input: {} })).toEqual({
      operation: 'counted',
      input: { credentials_dir: '/tmp/inbox-b' },
    });
    expect(builds()).toBe(1);
  });

  it('every entry of the table still has an object input schema and an output schema', () => {
    for (const op of operations) {
      expect(op.input, op.name).toBeInstanceOf(z.ZodObject);
      expect(op.output, op.name).toBeInstanceOf(z.ZodType);
    }
  });
});
