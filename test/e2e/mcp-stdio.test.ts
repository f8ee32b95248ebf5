import { spawn } from 'node:child_process';
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { listHelpTopics } from '../../src/help/index.js';
import { operationsFor } from '../../src/operations/index.js';
import { assertCompilesAsJsonSchema, findTupleForms } from '../helpers/json-schema-walk.js';
import {
  builtEntry,
  connectMcp,
  printStderrOnFailure,
  resultText,
  structured,
  type McpConnection,
} from '../helpers/connect-mcp.js';
import { noCrontab, repoBin, runCli } from '../helpers/run-cli.js';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// No sandbox here: nothing in this file may reach any host, and an unroutable URL proves it.
const offlineEnv = (credentialsDir: string): Record<string, string> => ({
  AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_API_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_CREDENTIALS_DIR: credentialsDir,
});

describe('the stdio MCP server: tools, schemas and the protocol stream', () => {
  let server: McpConnection | undefined;
  printStderrOnFailure(() => [server]);

  beforeAll(async () => {
    server = await connectMcp({ env: offlineEnv('/nonexistent/agent-mailbox-credentials') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists exactly the table entries offered through MCP with their titles and all four annotations', async () => {
    const { tools } = await server!.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['register', 'jmap_request', 'list_inboxes', 'help', 'watch_status']);
    for (const op of operationsFor('mcp')) {
      const tool = tools.find((t) => t.name === op.name);
      expect(tool?.title).toBe(op.title);
      expect(tool?.description).toBe(op.description);
      expect(tool?.annotations).toEqual({ title: op.title, ...op.annotations });
    }
  });

  it('publishes input and output schemas that compile as JSON Schema and contain no tuple form', async () => {
    const { tools } = await server!.client.listTools();
    for (const tool of tools) {
      assertCompilesAsJsonSchema(tool.inputSchema);
      assertCompilesAsJsonSchema(tool.outputSchema);
      expect(findTupleForms(tool.inputSchema), tool.name).toEqual([]);
      expect(findTupleForms(tool.outputSchema), tool.name).toEqual([]);
      for (const key of Object.keys(tool.inputSchema.properties ?? {})) expect(key).toMatch(/^[a-zA-Z0-9_.-]{1,64}$/);
    }
    const register = tools.find((t) => t.name === 'register');
    expect(register?.inputSchema.required).toEqual(['watch']);
  });

  it('answers help with structured content and its Markdown as the text', async () => {
    const result = await server!.client.callTool({ name: 'help', arguments: { topic: 'presets' } });
    expect(result.isError).toBeFalsy();
    const content = structured(result);
    expect(content).toMatchObject({ topic: 'presets' });
    expect(resultText(result)).toBe(content.text);
    expect(resultText(result).startsWith('# Presets')).toBe(true);
  });

  it('answers help without a topic with a short index (at most 3,000 bytes in all) naming every other topic', async () => {
    const result = await server!.client.callTool({ name: 'help', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(3_000);
    const text = resultText(result);
    expect(text.startsWith('# agent-mailbox: overview')).toBe(true);
    for (const topic of listHelpTopics().filter((t) => t !== 'overview')) expect(text).toContain(`- \`${topic}\`: `);
    // The detail the index leaves out is in its topic: the result keys moved to jmap.
    const jmap = resultText(await server!.client.callTool({ name: 'help', arguments: { topic: 'jmap' } }));
    expect(jmap).toContain('- `untrusted`: ');
    expect(text).not.toContain('- `untrusted`: ');
  });

  it('renders an unknown help topic as an isError result carrying code, hint and next', async () => {
    const result = await server!.client.callTool({ name: 'help', arguments: { topic: 'no-such-topic' } });
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({ error: { code: 'help_topic_unknown' } });
    expect(resultText(result)).toMatch(/\nNext: /);
  });

  it("refuses register without watch, naming it as the operator's decision", async () => {
    const result = await server!.client.callTool({ name: 'register', arguments: { username: 'some-agent' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/watch/);
    expect(resultText(result)).toMatch(/operator/);
  });

  it('tells the model to call register when no inbox is registered yet', async () => {
    const result = await server!.client.callTool({ name: 'jmap_request', arguments: { ops_file: 'list_inbox' } });
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({ error: { code: 'credentials_missing' } });
    expect(resultText(result)).toMatch(/call `register`/);
  });

  it('reports the daily job through watch_status and offers no tool that installs or runs one', async () => {
    const dir = await tempCredentialsDir();
    const result = await server!.client.callTool({ name: 'watch_status', arguments: { credentials_dir: dir } });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(structured(result)).toMatchObject({ installed: false, mechanism: 'unavailable', crontabAvailable: false });
    const { tools } = await server!.client.listTools();
    for (const operatorOnly of ['watch_install', 'watch_remove', 'watch_run', 'wake', 'sandbox', 'mcp']) {
      expect(tools.map((t) => t.name)).not.toContain(operatorOnly);
    }
  });

  it('lists the presets and help topics as resources and reads them', async () => {
    const { resources } = await server!.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('agent-mailbox://presets/list_inbox');
    expect(uris).toContain('agent-mailbox://help/presets');
    const preset = await server!.client.readResource({ uri: 'agent-mailbox://presets/send_mail' });
    expect(JSON.stringify(preset.contents)).toContain('SUBJECT');
  });

  it('has written nothing but JSON-RPC to stdout so far', () => {
    expect(server!.protocolErrors).toEqual([]);
  });
});

describe('the server process', () => {
  /** Spawns the server with raw pipes, so every stdout byte can be inspected. */
  async function spawnRaw(): Promise<{
    child: ReturnType<typeof spawn>;
    lines: string[];
    exit: Promise<number | null>;
  }> {
    const dir = await tempCredentialsDir();
    const child = spawn(process.execPath, [builtEntry, 'mcp'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        AGENT_MAILBOX_CRONTAB: noCrontab,
        AGENT_MAILBOX_DEBUG: '1',
        ...offlineEnv(dir),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buffer = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      lines.push(...parts);
    });
    child.stderr!.resume();
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, lines, exit };
  }

  const send = (child: ReturnType<typeof spawn>, message: unknown): void => {
    child.stdin!.write(`${JSON.stringify(message)}\n`);
  };

  it('writes only JSON-RPC lines to stdout, even with debug logging on, and exits 0 when stdin closes', async () => {
    const { child, lines, exit } = await spawnRaw();
    send(child, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send(child, { jsonrpc: '2.0', method: 'notifications/initialized' });
    send(child, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send(child, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'help', arguments: {} } });
    send(child, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'jmap_request', arguments: { ops_file: 'list_inbox' } },
    });
    send(child, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'register', arguments: { username: 'x' } },
    });
    await pollUntil(() => (lines.length >= 5 ? true : undefined), 20_000, 'five responses');
    child.stdin!.end();
    const code = await Promise.race([exit, pollUntil(() => undefined, 5_000, 'exit after stdin closed')]);
    expect(code).toBe(0);
    for (const line of lines) expect(() => JSONRPCMessageSchema.parse(JSON.parse(line)), line).not.toThrow();
    expect(lines.map((l) => (JSON.parse(l) as { id?: number }).id).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('refuses an unknown argument with usage on stderr, nothing on stdout and exit code 2', async () => {
    const run = await runCli(['mcp', '--no-such-flag'], { timeoutMs: 20_000 });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/unknown option '--no-such-flag'/);
    // …and where the right spelling is, as this checkout is run from the test's working directory.
    expect(run.stderr).toContain(`next: node ${relative(process.cwd(), repoBin)} mcp --help lists its options.`);
  });

  it('exits 0 on SIGTERM', async () => {
    const { child, lines, exit } = await spawnRaw();
    send(child, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    await pollUntil(() => (lines.length >= 1 ? true : undefined), 20_000, 'initialize response');
    child.kill('SIGTERM');
    const code = await Promise.race([exit, pollUntil(() => undefined, 5_000, 'exit after SIGTERM')]);
    expect(code).toBe(0);
  });
});
