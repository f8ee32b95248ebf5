import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { publishedAsType } from '../../../src/operations/define-operation.js';
import { outlineJsonSchema, portableJsonSchema, publishedSchema } from '../../../src/mcp/portable-json-schema.js';
import { subsetViolations } from '../../helpers/function-calling-subset.js';

describe('tool schemas in the function-calling subset', () => {
  it('drops $schema, propertyNames and the empty schemas zod writes for records and loose objects', () => {
    const schema = z.object({
      vars: z.record(z.string(), z.unknown()).optional(),
      result: z.looseObject({ ok: z.boolean() }),
    });
    const json = portableJsonSchema(schema, 'output');
    expect(json).not.toHaveProperty('$schema');
    expect(json.properties).toEqual({
      vars: { type: 'object' },
      result: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    expect(subsetViolations(json)).toEqual([]);
  });

  it('writes a literal as a one-value enum, inside unions too', () => {
    const json = portableJsonSchema(
      z.object({ done: z.literal(true), state: z.union([z.literal('a'), z.string()]) }),
      'input',
    );
    expect(json.properties).toEqual({
      done: { type: 'boolean', enum: [true] },
      state: { anyOf: [{ type: 'string', enum: ['a'] }, { type: 'string' }] },
    });
    expect(subsetViolations(json)).toEqual([]);
  });

  it('leaves what has no faithful rewrite for the subset check to refuse: a tuple, an array of anything', () => {
    expect(
      subsetViolations(portableJsonSchema(z.object({ call: z.tuple([z.string(), z.number()]) }), 'input')).join('\n'),
    ).toMatch(/prefixItems/);
    expect(subsetViolations(portableJsonSchema(z.object({ list: z.array(z.unknown()) }), 'input'))).toEqual([
      '#/properties/list/items: empty schema {} (says nothing; Gemini refuses it)',
      '#/properties/list/items: no type',
    ]);
  });

  it('publishes a schema registered as publishedAsType as its bare type and description, and still checks it whole', () => {
    const envelope = z.object({ calls: z.array(z.string()) }).register(publishedAsType, {});
    const schema = z.object({ ops: z.union([z.string(), envelope]).describe('The calls.') });
    expect(portableJsonSchema(schema, 'input').properties).toEqual({
      ops: { description: 'The calls.', anyOf: [{ type: 'string' }, { type: 'object' }] },
    });
    expect(schema.safeParse({ ops: { calls: 'not an array' } }).success).toBe(false);
    expect(schema.safeParse({ ops: { calls: ['a'] } }).success).toBe(true);
  });

  it('outlines an output schema to its top-level members: types, enums, arrays of primitives; nested objects bare', () => {
    const output = z.object({
      mode: z.enum(['a', 'b']),
      count: z.number().optional(),
      names: z.array(z.string()),
      rows: z.array(z.object({ id: z.string() })),
      job: z.object({ installed: z.boolean(), next: z.array(z.string()) }),
      either: z.union([z.string(), z.object({ x: z.number() })]),
    });
    const outlined = outlineJsonSchema(portableJsonSchema(output, 'output'));
    expect(outlined).toEqual({
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['a', 'b'] },
        count: { type: 'number' },
        names: { type: 'array', items: { type: 'string' } },
        rows: { type: 'array', items: { type: 'object' } },
        job: { type: 'object' },
        either: { anyOf: [{ type: 'string' }, { type: 'object' }] },
      },
      additionalProperties: false,
    });
    expect(subsetViolations(outlined)).toEqual([]);
    const published = publishedSchema(output, 'output')['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
    expect(published).toEqual(outlined);
  });

  it("publishes the JSON Schema but leaves checking the arguments to the operation (one validation, the project's errors)", () => {
    const published = publishedSchema(z.object({ n: z.number() }), 'input');
    expect(published['~standard'].validate({ n: 'not a number' })).toEqual({ value: { n: 'not a number' } });
    expect(published['~standard'].jsonSchema.input({ target: 'draft-2020-12' })).toEqual({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
  });
});
