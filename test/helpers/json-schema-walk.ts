import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * Paths of tuple forms in a JSON Schema: draft-07 `items: [...]` or 2020-12 `prefixItems`.
 * Several hosts reject them, and one bad schema breaks every tool for them (mcp-and-hosts.md).
 */
export function findTupleForms(schema: unknown, path = '#'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => findTupleForms(item, `${path}/${i}`));
  if (typeof schema !== 'object' || schema === null) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'items' && Array.isArray(value)) || key === 'prefixItems') found.push(`${path}/${key}`);
    found.push(...findTupleForms(value, `${path}/${key}`));
  }
  return found;
}

/** Throws when `schema` does not compile as a JSON Schema (Ajv, as the SDK client uses). */
export function assertCompilesAsJsonSchema(schema: unknown): void {
  new AjvJsonSchemaValidator().getValidator(schema as JsonSchemaType);
}
