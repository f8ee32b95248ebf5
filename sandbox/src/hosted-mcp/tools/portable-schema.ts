import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

/**
 * A zod input schema whose JSON Schema stays in the subset every common host accepts: zod stamps
 * `$schema` on the root, which Gemini's function declarations refuse (mcp-and-hosts.md), and one
 * refused schema breaks every tool for such a host. `additionalProperties: {}` (an open object) is
 * an empty schema, dropped: leaving the keyword out means the same. The rest of the subset (no
 * `propertyNames`, closed enums) is how the schemas are written; a test walks every listed schema.
 */
export function portableInput<T extends z.ZodObject>(schema: T): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const standard = schema['~standard'];
  const strip = (json: Record<string, unknown>): Record<string, unknown> => {
    const { $schema: _dialect, ...rest } = json;
    return withoutOpenAdditionalProperties(rest) as Record<string, unknown>;
  };
  return {
    '~standard': {
      ...standard,
      jsonSchema: {
        input: (options) => strip(standard.jsonSchema.input(options)),
        output: (options) => strip(standard.jsonSchema.output(options)),
      },
    },
  } as StandardSchemaWithJSON<z.input<T>, z.output<T>>;
}

function withoutOpenAdditionalProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutOpenAdditionalProperties);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(
        ([key, value]) =>
          !(
            key === 'additionalProperties' &&
            typeof value === 'object' &&
            value !== null &&
            Object.keys(value).length === 0
          ),
      )
      .map(([key, value]) => [key, withoutOpenAdditionalProperties(value)]),
  );
}
