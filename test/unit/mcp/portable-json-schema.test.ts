import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { portableJsonSchema, publishedSchema } from '../../../src/mcp/portable-json-schema.js';
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
