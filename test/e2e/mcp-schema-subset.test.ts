import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listHelpTopics } from '../../src/help/index.js';
import { usernameLength, usernamePattern } from '../../src/wire-constants.js';
import {
  connectMcp,
  connectMcp2026,
  printStderrOnFailure,
  type McpConnection,
  type McpConnection2026,
} from '../helpers/connect-mcp.js';
import { measureToolList } from '../../bench/tool-list-bench.js';
import { maxDescriptionChars, propertyKey, subsetViolations } from '../helpers/function-calling-subset.js';

// The real tools/list of the built server, in both protocol eras, against the schema subset that
// OpenAI, Gemini and the hosts passing MCP tools on to them accept (test/helpers/function-calling-subset.ts).
const offlineEnv = {
  AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_API_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_CREDENTIALS_DIR: '/nonexistent/agent-mailbox',
};

interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
}

describe('the tools/list JSON of the built server', () => {
  let legacy: McpConnection | undefined;
  let modern: McpConnection2026 | undefined;
  const lists: { era: string; tools: ListedTool[] }[] = [];
  printStderrOnFailure(() => [legacy, modern]);

  beforeAll(async () => {
    legacy = await connectMcp({ env: offlineEnv });
    modern = await connectMcp2026({ env: offlineEnv });
    lists.push({ era: '2025-11-25', tools: (await legacy.client.listTools()).tools as ListedTool[] });
    lists.push({ era: '2026-07-28', tools: (await modern.client.listTools()).tools as ListedTool[] });
  });
  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
  });

  it('keeps every input and output schema inside the function-calling subset, in both eras', () => {
    for (const { era, tools } of lists) {
      expect(tools.length, era).toBeGreaterThan(0);
      for (const tool of tools) {
        expect(subsetViolations(tool.inputSchema), `${era} ${tool.name} input`).toEqual([]);
        expect(subsetViolations(tool.outputSchema), `${era} ${tool.name} output`).toEqual([]);
        expect(tool.inputSchema.type, `${era} ${tool.name}`).toBe('object');
      }
    }
  });

  it('keeps names, input keys and descriptions within what providers accept', () => {
    for (const { era, tools } of lists) {
      for (const tool of tools) {
        expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(tool.description?.length ?? 0, `${era} ${tool.name}`).toBeLessThanOrEqual(maxDescriptionChars);
        for (const key of Object.keys((tool.inputSchema.properties as object | undefined) ?? {}))
          expect(key).toMatch(propertyKey);
      }
    }
  });

  // tools/list goes into every conversation of every host before the agent reads a mail: the
  // budget is what `npm run bench -- --only tool` prints, in bytes of compact UTF-8 JSON.
  it('stays within 7,000 bytes in all and 4,400 for the names, descriptions and input schemas, in both eras', () => {
    for (const { era, tools } of lists) {
      const size = measureToolList(tools);
      expect(size.totalBytes, era).toBeLessThanOrEqual(7_000);
      expect(size.callBytes, era).toBeLessThanOrEqual(4_400);
    }
  });

  it('keeps an output schema for every tool, with its top-level members and the error member', () => {
    for (const { era, tools } of lists) {
      for (const tool of tools) {
        const properties = tool.outputSchema?.properties as Record<string, unknown> | undefined;
        expect(properties?.error, `${era} ${tool.name}`).toEqual({ type: 'object' });
      }
      const register = tools.find((t) => t.name === 'register')?.outputSchema?.properties;
      expect(Object.keys(register ?? {})).toEqual(expect.arrayContaining(['inbox', 'accountId', 'watch', 'next']));
    }
  });

  it('offers the fixed help topics as a closed enum and the username rule as a pattern', () => {
    for (const { era, tools } of lists) {
      const properties = (name: string): Record<string, Record<string, unknown>> =>
        tools.find((t) => t.name === name)?.inputSchema.properties as Record<string, Record<string, unknown>>;
      expect(properties('help').topic?.enum, era).toEqual(listHelpTopics());
      expect(properties('register').username, era).toMatchObject({
        type: 'string',
        minLength: usernameLength.min,
        maxLength: usernameLength.max,
        pattern: usernamePattern.source,
      });
      const pattern = new RegExp(String(properties('register').username?.pattern));
      expect(['my-agent', 'a.b_c-1', 'agent7'].filter((name) => !pattern.test(name))).toEqual([]);
      expect(['-agent', 'agent.', 'Agent', 'my agent'].filter((name) => pattern.test(name))).toEqual([]);
    }
  });

  it('describes a JMAP method call to the model as an array of strings and objects', () => {
    const ops = (
      lists[0]!.tools.find((t) => t.name === 'jmap_request')?.inputSchema.properties as Record<
        string,
        { anyOf: unknown[] }
      >
    ).ops;
    expect(ops?.anyOf).toContainEqual({
      type: 'array',
      items: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'object' }] } },
    });
    // The envelope {"using", "methodCalls"} is published as an object (the description tells its shape).
    expect(ops?.anyOf).toEqual([{ type: 'string' }, expect.anything(), { type: 'object' }]);
  });
});
