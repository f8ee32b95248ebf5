/**
 * The JSON Schema subset the major function-calling APIs accept for a tool's parameters (OpenAI,
 * Gemini, and the hosts that pass MCP schemas on to them; see shared mcp-and-hosts.md "Host
 * limits"). One keyword outside it can make a provider refuse every tool of the server.
 * Returns one line per violation, with its JSON Pointer.
 */
export function subsetViolations(schema: unknown, path = '#'): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${path}: not a schema object`];
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  const keys = Object.keys(node);
  if (keys.length === 0) found.push(`${path}: empty schema {} (says nothing; Gemini refuses it)`);
  for (const key of keys) if (!allowedKeywords.has(key)) found.push(`${path}/${key}: keyword outside the subset`);
  if (!('type' in node) && !('anyOf' in node) && !('enum' in node)) found.push(`${path}: no type`);
  if (Array.isArray(node.type)) found.push(`${path}/type: a list of types (use anyOf)`);
  if (node.type === 'array' && !('items' in node))
    found.push(`${path}: array without items (Gemini: "items: missing field")`);
  if ('additionalProperties' in node && node.additionalProperties !== false)
    found.push(`${path}/additionalProperties: only false is portable`);
  if (typeof node.pattern === 'string') {
    try {
      new RegExp(node.pattern, 'u');
    } catch {
      found.push(`${path}/pattern: not a valid regular expression`);
    }
  }
  if (isRecord(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      if (!propertyKey.test(name)) found.push(`${path}/properties/${name}: key outside ${propertyKey}`);
      found.push(...subsetViolations(child, `${path}/properties/${name}`));
    }
  }
  if ('items' in node) {
    if (Array.isArray(node.items)) found.push(`${path}/items: tuple form`);
    else found.push(...subsetViolations(node.items, `${path}/items`));
  }
  if (Array.isArray(node.anyOf))
    node.anyOf.forEach((child, i) => found.push(...subsetViolations(child, `${path}/anyOf/${i}`)));
  return found;
}

/** Input property keys as the hosts' function-calling APIs name parameters. */
export const propertyKey = /^[a-zA-Z0-9_.-]{1,64}$/;

/** OpenAI's limit on a function description (others truncate: Claude Code at 2 KB). */
export const maxDescriptionChars = 1_024;

const allowedKeywords = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'items',
  'enum',
  'anyOf',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'default',
  'additionalProperties',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
