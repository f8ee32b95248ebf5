import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtEntry, connectMcp, printStderrOnFailure, type McpConnection } from '../helpers/connect-mcp.js';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';
import { recordBundleReads } from '../helpers/bundle-reads.js';

// A host starts the server and waits for initialize and tools/list before anything else: those need
// the table (names, descriptions, schemas), not the code a tool call runs. The built server is started
// with a preload that writes down every file of the bundle it reads, and the code of those chunks is
// searched for the definitions of the call's work.

const distDir = dirname(builtEntry);

/** Definitions as they read in the bundle (dist keeps names); each is checked to be found after a call. */
const callWork = {
  'the request pipeline (src/request/run-jmap-request)': /\bfunction runJmapRequest\(/,
  'the receive screen (src/screen)': /\bReceiveScreen=class\b/,
  'the account registry (src/auth/create-account-registry)': /\bfunction createAccountRegistry\(/,
};

let root: string | undefined;
let server: McpConnection | undefined;
printStderrOnFailure(() => [server]);
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** Starts the built server with the loader hook; `found(until)` gives what the work markers found in the modules read by then. */
async function startRecorded(): Promise<{ connection: McpConnection; found: (until?: number) => Promise<string[]> }> {
  root = await mkdtemp(join(tmpdir(), 'agent-mailbox-start-'));
  const reads = await recordBundleReads(root);
  const connection = await connectMcp({
    env: {
      // Offline: nothing here may reach a host, and an unroutable URL proves it.
      AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:9',
      AGENT_MAILBOX_API_URL: 'http://127.0.0.1:9',
      AGENT_MAILBOX_CREDENTIALS_DIR: join(root, 'credentials'),
      ...reads.env,
    },
    nodeArgs: [...reads.nodeArgs, builtEntry, 'mcp'],
  });
  server = connection;
  const found = async (until = Infinity): Promise<string[]> => {
    const files = await reads.files(distDir, until);
    expect(
      files.some((file) => /[\\/]start-mailbox-[^\\/]+\.js$/.test(file)),
      'the preload recorded the bundle',
    ).toBe(true);
    const code = await Promise.all(files.map((file) => readFile(file, 'utf8')));
    return Object.entries(callWork)
      .filter(([, definition]) => code.some((text) => definition.test(text)))
      .map(([what]) => what);
  };
  return { connection, found };
}

describe('the MCP server start', () => {
  it('answers initialize and tools/list without loading the code of a tool call, and loads it once the host is quiet', async () => {
    const { connection, found } = await startRecorded();
    const { tools } = await connection.client.listTools();
    const answered = Date.now();
    expect(tools.map((t) => t.name)).toContain('jmap_request');
    expect(await found(answered)).toEqual([]);

    // A second after its last answer, the server loads the work a call needs, with no call made.
    await pollUntil(async () => ((await found()).length === Object.keys(callWork).length ? true : undefined), 15_000);
    expect(await found()).toEqual(Object.keys(callWork));
    // It answered nothing in between: what it loaded came after tools/list was answered.
    expect(await found(answered)).toEqual([]);

    // No credentials here: the call fails in its work, which shows the markers name what a call runs.
    const result = await connection.client.callTool({
      name: 'jmap_request',
      arguments: { ops_file: 'list_inbox' },
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.structuredContent)).toContain('credentials_missing');
  });

  it('answers a call that comes straight after the start, loading the work it needs', async () => {
    const { connection, found } = await startRecorded();
    const result = await connection.client.callTool({
      name: 'jmap_request',
      arguments: { ops_file: 'list_inbox' },
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.structuredContent)).toContain('credentials_missing');
    expect(await found()).toEqual(Object.keys(callWork));
  });
});
