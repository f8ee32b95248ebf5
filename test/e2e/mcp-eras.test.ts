import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtEntry,
  connectMcp,
  connectMcp2026,
  printStderrOnFailure,
  resultText,
  structured,
} from '../helpers/connect-mcp.js';
import { noCrontab } from '../helpers/run-cli.js';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';

// One built server, two protocol eras: a 2025-11-25 client (the SDK's 1.x Client, what hosts run
// today: initialize first) and a 2026-07-28 client (the SDK's 2.x Client pinned to it: no
// initialize, server/discover and the per-request envelope). Each gets the same tools, resources,
// completion and error rendering; progress and cancellation in both eras are in mcp-pow.test.ts,
// beside the other proof-of-work tests, so no two solvers compete across test files.
const offlineEnv = {
  AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_API_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_CREDENTIALS_DIR: '/nonexistent/agent-mailbox',
};
/** What these tests need of either client, the same way round. */
interface EraClient {
  pid: number;
  stderr(): string;
  listTools(): Promise<{ name: string }[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  listResources(): Promise<{ uri: string; name: string; title?: string | undefined }[]>;
  readResource(uri: string): Promise<{ contents: unknown[] }>;
  complete(template: string, argument: string, value: string): Promise<string[]>;
  serverInfo(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

const eras: { era: string; resourceNotFound: number; connect: (env: Record<string, string>) => Promise<EraClient> }[] =
  [
    {
      era: '2025-11-25',
      resourceNotFound: -32002,
      connect: async (env) => {
        const c = await connectMcp({ env });
        return {
          pid: c.pid,
          stderr: c.stderr,
          listTools: async () => (await c.client.listTools()).tools,
          callTool: (name, args) => c.client.callTool({ name, arguments: args }),
          listResources: async () => (await c.client.listResources()).resources,
          readResource: (uri) => c.client.readResource({ uri }),
          complete: async (uri, name, value) =>
            (await c.client.complete({ ref: { type: 'ref/resource', uri }, argument: { name, value } })).completion
              .values,
          serverInfo: () => c.client.getServerVersion() as Record<string, unknown> | undefined,
          close: c.close,
        };
      },
    },
    {
      era: '2026-07-28',
      resourceNotFound: -32602,
      connect: async (env) => {
        const c = await connectMcp2026({ env });
        expect(c.client.getProtocolEra()).toBe('modern');
        return {
          pid: c.pid,
          stderr: c.stderr,
          listTools: async () => (await c.client.listTools()).tools,
          callTool: (name, args) => c.client.callTool({ name, arguments: args }),
          listResources: async () => (await c.client.listResources()).resources,
          readResource: (uri) => c.client.readResource({ uri }),
          complete: async (uri, name, value) =>
            (await c.client.complete({ ref: { type: 'ref/resource', uri }, argument: { name, value } })).completion
              .values,
          serverInfo: () => c.client.getServerVersion() as Record<string, unknown> | undefined,
          close: c.close,
        };
      },
    },
  ];

for (const { era, resourceNotFound, connect } of eras) {
  describe(`the built server to a ${era} client`, () => {
    let client: EraClient | undefined;
    printStderrOnFailure(() => [client]);
    beforeAll(async () => {
      client = await connect(offlineEnv);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists the tools and answers a call', async () => {
      expect((await client!.listTools()).map((t) => t.name)).toEqual([
        'register',
        'jmap_request',
        'list_inboxes',
        'help',
        'watch_status',
      ]);
      const help = await client!.callTool('help', { topic: 'presets' });
      expect(resultText(help).startsWith('# Presets')).toBe(true);
    });

    it('renders arguments the schema refuses like any other failure: code, message, hint, next step, structuredContent', async () => {
      const topic = await client!.callTool('help', { topic: 'no-such-topic' });
      expect(topic).toMatchObject({ isError: true });
      expect(structured(topic)).toMatchObject({
        error: {
          code: 'help_topic_unknown',
          hint: 'Correct topic as the tool\'s input schema describes and call help again (help topic "tools" explains every argument).',
          next: { operation: 'help', input: { topic: 'tools' } },
          nextCall: 'call `help` with {"topic":"tools"}',
        },
      });
      expect(resultText(topic)).toMatch(
        /^help cannot take these arguments: topic: Invalid option: expected one of "overview"\|.*\nNext: Correct topic /,
      );
      expect(resultText(topic)).not.toMatch(/MCP error|-32602|Input validation error/);
      const username = await client!.callTool('register', { username: 'Bad Name', watch: 'on-demand' });
      expect(structured(username)).toMatchObject({ error: { code: 'username_invalid' } });
      expect(resultText(username)).toMatch(/username: username must be 5–21 characters: lowercase letters/);
      const ops = await client!.callTool('jmap_request', { ops: 5 });
      expect(structured(ops)).toMatchObject({ error: { code: 'ops_invalid' } });
      expect(resultText(ops)).toMatch(/ops must be a methodCalls array/);
    });

    it('gives every resource its own title and reads one', async () => {
      const resources = await client!.listResources();
      expect(resources.length).toBeGreaterThanOrEqual(23);
      const titles = resources.map((r) => r.title);
      expect(new Set(titles).size).toBe(resources.length);
      expect(resources.find((r) => r.uri === 'agent-mailbox://presets/reply_all')?.title).toBe(
        'Preset reply_all (jmap_request)',
      );
      expect(resources.find((r) => r.uri === 'agent-mailbox://help/multi_account')?.title).toBe('Help: multi account');
      const preset = await client!.readResource('agent-mailbox://presets/send_mail');
      expect(JSON.stringify(preset.contents)).toContain('SUBJECT');
    });

    it(`answers an unknown preset or topic with resource not found (${resourceNotFound}), naming the URI`, async () => {
      for (const uri of ['agent-mailbox://presets/no_such_preset', 'agent-mailbox://help/no_such_topic']) {
        const error = await client!.readResource(uri).then(
          () => undefined,
          (e: unknown) => e as { code?: number; data?: unknown; message: string },
        );
        expect(error?.code, uri).toBe(resourceNotFound);
        expect(error?.data).toEqual({ uri });
      }
    });

    it('completes a preset or topic name from what was typed', async () => {
      expect(await client!.complete('agent-mailbox://presets/{name}', 'name', 're')).toEqual([
        'read_message',
        'read_thread',
        'reply',
        'reply_all',
      ]);
      expect(await client!.complete('agent-mailbox://presets/{name}', 'name', 'SEND_MAIL_')).toEqual([
        'send_mail_attachment',
        'send_mail_blob_attachment',
      ]);
      expect(await client!.complete('agent-mailbox://help/{topic}', 'topic', 't')).toEqual([
        'tools',
        'troubleshooting',
      ]);
      expect(await client!.complete('agent-mailbox://help/{topic}', 'topic', 'zz')).toEqual([]);
    });

    it('introduces itself with a description, a website and an icon', () => {
      const info = client!.serverInfo();
      expect(info).toMatchObject({
        name: 'agent-mailbox',
        title: 'Agent Mailbox',
        websiteUrl: 'https://github.com/agent-mailbox/agent-mailbox',
      });
      expect(String(info?.description)).toMatch(/e-mail inbox/);
      expect(info?.icons).toEqual([
        expect.objectContaining({
          src: expect.stringMatching(/^data:image\/svg\+xml;base64,/),
          mimeType: 'image/svg+xml',
        }),
      ]);
      const svg = Buffer.from(String((info?.icons as { src: string }[])[0]?.src.split(',')[1]), 'base64').toString(
        'utf8',
      );
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
    });
  });
}

describe('which era a connection gets', () => {
  /** Sends one line to a fresh server and returns its first answer. */
  async function firstAnswer(message: unknown): Promise<Record<string, unknown>> {
    const child = spawn(process.execPath, [builtEntry, 'mcp'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENT_MAILBOX_CRONTAB: noCrontab, ...offlineEnv },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      return JSON.parse(
        await pollUntil(() => (out.includes('\n') ? out.split('\n')[0] : undefined), 10_000, 'an answer'),
      ) as Record<string, unknown>;
    } finally {
      child.stdin.end();
    }
  }

  it('answers initialize with 2025-11-25, and server/discover with 2026-07-28 among its versions', async () => {
    const initialized = await firstAnswer({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    expect(initialized).toMatchObject({
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'agent-mailbox' } },
    });
    const discovered = await firstAnswer({
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    expect(discovered).toMatchObject({
      result: {
        supportedVersions: ['2026-07-28'],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agent-mailbox' } },
      },
    });
  });
});
