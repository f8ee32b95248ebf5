import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  printStderrOnFailure,
  resultText,
  sandboxEnv,
  type McpConnection,
} from '../helpers/connect-mcp.js';
import { decodeJwt, pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// Issue 4: while the server is in use, the session is renewed in the background before it
// expires, so no request waits for a proof of work. Issue 9: instead of waiting for short TTLs to
// run out, the built server is started with a clock the test moves (an offset read from a file),
// and the sandbox issues live lifetimes (1 h sessions, 2 min capabilities).
const sandbox = await startTestSandbox({ difficulty: 2 });
const mcpMain = pathToFileURL(fileURLToPath(new URL('../../dist/mcp/main.js', import.meta.url))).href;
const startWithClock = [
  "import { readFileSync } from 'node:fs';",
  `const { runMcpServer } = await import(${JSON.stringify(mcpMain)});`,
  'const offsetFile = process.argv[1];',
  "const now = () => Date.now() + Number(readFileSync(offsetFile, 'utf8'));",
  'await runMcpServer({ env: process.env, now });',
].join('\n');

const cheapOps = JSON.stringify([['Mailbox/get', { accountId: '$ACCOUNT_ID', ids: [] }, 'm']]);
const readSession = async (dir: string): Promise<string> => (await readFile(join(dir, 'session.jwt'), 'utf8')).trim();

describe('refresh-ahead in the MCP server', () => {
  let server: McpConnection | undefined;
  printStderrOnFailure(() => [server]);
  afterAll(async () => {
    await server?.close();
  });

  it('renews each session in the background when a request finds it inside the 5-minute window', async () => {
    const dir = await tempCredentialsDir();
    const offsetFile = join(dir, '..', `${dir.split('/').at(-1)}-clock`);
    await writeFile(offsetFile, '0');
    server = await connectMcp({
      env: { ...sandboxEnv(sandbox, dir), AGENT_MAILBOX_DEBUG: '1' },
      nodeArgs: ['--input-type=module', '-e', startWithClock, offsetFile],
    });
    const registered = await server.client.callTool({
      name: 'register',
      arguments: { username: 'steady-agent', watch: 'on-demand' },
    });
    expect(registered.isError, resultText(registered)).toBeFalsy();

    for (let expiry = 1; expiry <= 3; expiry++) {
      const session = await readSession(dir);
      const before = sandbox.stats();
      // Four minutes left at the server's clock: inside the window, far from the 30 s renewal margin.
      const offsetMs = Number(decodeJwt(session)['exp']) * 1000 - 240_000 - Date.now();
      await writeFile(offsetFile, String(offsetMs));
      const result = await server.client.callTool({ name: 'jmap_request', arguments: { ops: cheapOps } });
      expect(result.isError, resultText(result)).toBeFalsy();
      // The background login replaces the stored session; the request did not wait for it.
      await pollUntil(
        async () => ((await readSession(dir)) !== session ? true : undefined),
        20_000,
        `the background renewal ${expiry}`,
      );
      expect(sandbox.stats().logins - before.logins, `expiry ${expiry}`).toBe(1);
    }
    await pollUntil(
      () => (server?.stderr().split('Session renewed ahead of expiry.').length === 4 ? true : undefined),
      5_000,
      'three renewals in the log',
    );
  });
});
