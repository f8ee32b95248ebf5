import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { isRecord } from '../is-record.js';
import { publishedAsType } from '../operations/define-operation.js';

/**
 * Hosts hand a tool's JSON Schema to the model provider, and OpenAI, Gemini and others take a subset:
 * no `$schema`, `propertyNames` or `{}` schemas, `enum` not `const`, `anyOf` not a list of types (one
 * refused schema breaks every tool). Rewrites change nothing a value may be; what has none (a tuple) is
 * refused by test/e2e/mcp-schema-subset.test.ts and fixed at source.
 */

type JsonSchema = Record<string, unknown>;

export function portableJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      if (!publishedAsType.has(zodSchema)) return;
      for (const key of Object.keys(jsonSchema)) if (key !== 'type' && key !== 'description') delete jsonSchema[key];
    },
  }) as JsonSchema;
  return portable(json);
}

function portable(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    // Every JSON object key is a string: this says nothing.
    if (key === 'propertyNames' && isRecord(value) && Object.keys(value).length === 1 && value.type === 'string')
      continue;
    // `{}` and `true` allow any further member, as leaving the keyword out does.
    if (key === 'additionalProperties' && (value === true || (isRecord(value) && Object.keys(value).length === 0)))
      continue;
    // A list of types (zod writes one for a union of bare types) is an anyOf of each.
    if (key === 'type' && Array.isArray(value) && !('anyOf' in node)) {
      out.anyOf = value.map((type: unknown) => ({ type }));
      continue;
    }
    if (key === 'const') {
      out.enum = [value];
      continue;
    }
    out[key] = rewriteChildren(key, value);
  }
  return out;
}

function rewriteChildren(key: string, value: unknown): unknown {
  if (key === 'properties' && isRecord(value))
    return Object.fromEntries(
      Object.entries(value).map(([name, child]) => [name, isRecord(child) ? portable(child) : child]),
    );
  if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value))
    return value.map((child: unknown) => (isRecord(child) ? portable(child) : child));
  if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isRecord(value)) return portable(value);
  return value;
}

/**
 * An output schema cut to its members' names and types, nested objects bare: tools/list is in every
 * conversation, and the output schema only has to let the SDK clients accept structuredContent.
 */
export function outlineJsonSchema(schema: JsonSchema): JsonSchema {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, isRecord(child) ? outlineMember(child) : child]),
    ),
    ...(schema.additionalProperties === false ? { additionalProperties: false } : {}),
  };
}

function outlineMember(node: JsonSchema): JsonSchema {
  if (Array.isArray(node.anyOf)) return { anyOf: node.anyOf.map((c: unknown) => (isRecord(c) ? outlineMember(c) : c)) };
  if (node.type === 'object') return { type: 'object' };
  if (node.type === 'array' && isRecord(node.items)) return { type: 'array', items: outlineMember(node.items) };
  if (typeof node.type !== 'string' || node.type === 'array') return node;
  return { type: node.type, ...(Array.isArray(node.enum) ? { enum: node.enum } : {}) };
}

/** Published but not checked by the SDK: the handler validates, so a bad argument gets the project's error. */
export function publishedSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
): StandardSchemaWithJSON<Record<string, unknown>> {
  let json: JsonSchema | undefined;
  const jsonSchema = (): JsonSchema =>
    (json ??= io === 'output' ? outlineJsonSchema(portableJsonSchema(schema, io)) : portableJsonSchema(schema, io));
  return {
    '~standard': {
      version: 1,
      vendor: 'agent-mailbox',
      validate: (value) => ({ value: isRecord(value) ? value : {} }),
      jsonSchema: { input: jsonSchema, output: jsonSchema },
    },
  };
}
