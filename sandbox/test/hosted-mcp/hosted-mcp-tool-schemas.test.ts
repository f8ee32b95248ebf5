import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { signUpInbox, startTestSandbox } from '../helpers/sandbox.js';
import { connectWithApiKey } from './hosted-mcp-kit.js';

// One schema a host refuses breaks every tool for it (mcp-and-hosts.md): the listed tools stay in
// the subset ChatGPT, Gemini and Claude all take, and their annotations say what they do.
const sandbox = await startTestSandbox();
const inbox = await signUpInbox(sandbox, 'schema-reader');
const { client } = await connectWithApiKey(sandbox.mcpUrl, { 'x-api-key': inbox.apiKey });
const tools: Tool[] = (await client.listTools()).tools;

/** Every place a JSON Schema may sit, with its path, below `schema`. */
function subschemas(schema: unknown, path = '#'): Array<{ path: string; node: Record<string, unknown> }> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const found = [{ path, node }];
  for (const key of ['items', 'additionalProperties', 'not', 'contains'])
    if (key in node) found.push(...subschemas(node[key], `${path}/${key}`));
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
    if (Array.isArray(node[key]))
      (node[key] as unknown[]).forEach((item, i) => found.push(...subschemas(item, `${path}/${key}/${i}`)));
  for (const [name, value] of Object.entries((node['properties'] ?? {}) as Record<string, unknown>))
    found.push(...subschemas(value, `${path}/properties/${name}`));
  return found;
}

describe('the hosted tools as a host sees them', () => {
  it('are the tools of spec §2.8, without register', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'fetch',
      'help',
      'jmap_request',
      'list_agents',
      'read_inbox',
      'read_message',
      'reply_to_message',
      'run_preset',
      'search',
      'search_messages',
      'send_email',
    ]);
  });

  it.each(tools.map((tool) => [tool.name, tool] as const))(
    '%s has a description of at most 1,024 characters and a portable input schema',
    (_name, tool) => {
      expect(tool.description?.length ?? 0).toBeGreaterThan(40);
      expect(tool.description?.length ?? 0).toBeLessThanOrEqual(1024);
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(tool.inputSchema.type).toBe('object');
      const problems = subschemas(tool.inputSchema).flatMap(({ path, node }) => [
        ...('$schema' in node ? [`${path}: $schema`] : []),
        ...('propertyNames' in node ? [`${path}: propertyNames`] : []),
        ...(Object.keys(node).filter((key) => key !== 'description').length === 0 ? [`${path}: empty schema`] : []),
        ...(Array.isArray(node['items']) || 'prefixItems' in node ? [`${path}: tuple`] : []),
        ...('enum' in node &&
        !(
          Array.isArray(node['enum']) &&
          node['enum'].length > 0 &&
          node['enum'].every((value) => typeof value === 'string')
        )
          ? [`${path}: open enum`]
          : []),
        ...Object.keys((node['properties'] ?? {}) as object)
          .filter((key) => !/^[a-zA-Z0-9_.-]{1,64}$/.test(key))
          .map((key) => `${path}: property ${key}`),
      ]);
      expect(problems).toEqual([]);
    },
  );

  it('set all four annotations, truthfully', () => {
    const hints = Object.fromEntries(
      tools.map((tool) => [
        tool.name,
        [
          tool.annotations?.readOnlyHint,
          tool.annotations?.destructiveHint,
          tool.annotations?.idempotentHint,
          tool.annotations?.openWorldHint,
        ],
      ]),
    );
    const reads = [true, false, true, false];
    expect(hints).toEqual({
      list_agents: reads,
      read_inbox: reads,
      read_message: reads,
      search_messages: reads,
      search: reads,
      fetch: reads,
      help: reads,
      send_email: [false, false, false, true],
      reply_to_message: [false, false, false, true],
      run_preset: [false, false, false, true],
      jmap_request: [false, true, false, true],
    });
  });

  it('take agent_id, an accountId, on every tool that reaches an inbox', () => {
    for (const tool of tools.filter((candidate) => !['help', 'list_agents'].includes(candidate.name))) {
      expect(
        (tool.inputSchema.properties as Record<string, Record<string, unknown>>)['agent_id'],
        tool.name,
      ).toMatchObject({ type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });
      expect(tool.inputSchema.required ?? [], tool.name).not.toContain('agent_id');
    }
  });

  it('limit read_inbox to 1–50 messages, 25 by default', () => {
    expect(
      (tools.find((tool) => tool.name === 'read_inbox')?.inputSchema.properties as Record<string, unknown>)['limit'],
    ).toMatchObject({ type: 'integer', minimum: 1, maximum: 50, default: 25 });
  });
});
