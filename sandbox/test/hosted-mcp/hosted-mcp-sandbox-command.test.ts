import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sandboxCommandInput, sandboxOptionsOf } from '../../src/sandbox-command-input.js';
import { runSandboxCommand } from '../../src/sandbox-command.js';
import { pollUntil, signUpInbox } from '../helpers/sandbox.js';
import { withReadyLine } from '../helpers/sandbox-process.js';
import { callFailing, callOk, connectWithApiKey } from './hosted-mcp-kit.js';

const builtCli = fileURLToPath(new URL('../../../dist/bin.js', import.meta.url));

/** Runs `agent-mailbox sandbox` with `flags` until `check` is done with what it printed first. */
async function withSandboxCommand(
  flags: Record<string, unknown>,
  check: (printed: string) => Promise<void>,
): Promise<void> {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const controller = new AbortController();
  const running = runSandboxCommand(sandboxOptionsOf(sandboxCommandInput.parse({ difficulty: '2', ...flags })), {
    stdout,
    stderr: new PassThrough(),
    signal: controller.signal,
  });
  try {
    await check(
      await pollUntil(
        () => (text.includes(flags['json'] ? '\n' : 'Ctrl+C') ? text : undefined),
        15_000,
        'the sandbox to print its URLs',
      ),
    );
  } finally {
    controller.abort();
    expect(await running).toBe(0);
  }
}

describe('agent-mailbox sandbox and the hosted MCP server', () => {
  it('prints mcpUrl in the --json line, and --hosted-jmap off leaves jmap_request out while run_preset stays', async () => {
    await withSandboxCommand({ json: true, hosted_jmap: 'off' }, async (line) => {
      const ready = JSON.parse(line) as { mcpUrl: string; authUrl: string; salt: string };
      expect(ready.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const inbox = await signUpInbox(ready, 'no-raw-jmap');
      const { client } = await connectWithApiKey(ready.mcpUrl, { 'x-api-key': inbox.apiKey });
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).not.toContain('jmap_request');
      expect(names).toContain('run_preset');
      // Not offered at all, so no path reaches it: a call is a protocol error, as for any unknown tool.
      await expect(
        client.callTool({ name: 'jmap_request', arguments: { method_calls: [['Mailbox/get', {}, 'm']] } }),
      ).rejects.toThrow('Tool jmap_request not found');
      expect((await callOk(client, 'run_preset', { preset: 'list_inbox' }))['messages']).toEqual([]);
      expect(String((await callOk(client, 'help', { topic: 'advanced' }))['text'])).toContain(
        'jmap_request is switched off by the operator',
      );
    });
  });

  it('names the MCP host and whether jmap_request is on in the banner, and takes --mcp-port', async () => {
    await withSandboxCommand({}, async (banner) => {
      expect(banner).toMatch(
        /MCP host {4}http:\/\/127\.0\.0\.1:\d+\/mcp {3}\(hosted MCP, Streamable HTTP: OAuth or an inbox apiKey; jmap_request on\)/,
      );
    });
    expect(sandboxOptionsOf(sandboxCommandInput.parse({ mcp_port: '0', hosted_jmap: 'on' }))).toMatchObject({
      mcpPort: 0,
      hostedJmap: true,
    });
    expect(sandboxCommandInput.safeParse({ hosted_jmap: 'maybe' }).error?.issues[0]?.message).toBe(
      '--hosted-jmap is on or off',
    );
  });

  it('gives an unknown help topic as an error that lists the topics', async () => {
    await withSandboxCommand({ json: true }, async (line) => {
      const ready = JSON.parse(line) as { mcpUrl: string; authUrl: string; salt: string };
      const inbox = await signUpInbox(ready, 'help-reader');
      const { client } = await connectWithApiKey(ready.mcpUrl, { authorization: `Bearer ${inbox.apiKey}` });
      const { text } = await callFailing(client, 'help', { topic: 'billing' });
      expect(text).toContain(
        'Unknown help topic; the topics are overview, tools, agents, auth, advanced, troubleshooting.',
      );
    });
  });
});

describe('the built package', () => {
  it('serves the hosted MCP tools from `agent-mailbox sandbox` as bundled (dist/bin.js)', async () => {
    await withReadyLine<{ mcpUrl: string; authUrl: string; salt: string }>(
      [builtCli, 'sandbox', '--json', '--difficulty', '2'],
      async (ready) => {
        const inbox = await signUpInbox(ready, 'bundled-agent');
        const { client } = await connectWithApiKey(ready.mcpUrl, { 'x-api-key': inbox.apiKey });
        expect(((await callOk(client, 'read_inbox'))['inbox'] as Record<string, unknown>)['address']).toBe(
          'bundled-agent@agent-mailbox.test',
        );
        await client.close();
      },
    );
  });
});
