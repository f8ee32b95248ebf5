import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  printStderrOnFailure,
  resultText,
  sandboxEnv,
  structured,
  type McpConnection,
} from '../helpers/connect-mcp.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

// wait_for_mail through the built stdio server and the SDK Client: progress while it waits, an
// answer within 1.5 s of a delivery, the per-call budget (8 s here, so at most 3 s of waiting),
// and a cancel that stops the server's wait within 1 s.
const sandbox = await startTestSandbox();
const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-mcp-wait-'));
afterAll(() => rm(workDir, { recursive: true, force: true }));

describe('wait_for_mail through the MCP server', () => {
  let server: McpConnection | undefined;
  let address = '';
  printStderrOnFailure(() => [server]);

  beforeAll(async () => {
    server = await connectMcp({
      env: { ...sandboxEnv(sandbox, join(workDir, 'agent')), AGENT_MAILBOX_DEBUG: '1' },
      args: ['--tool-deadline-ms', '8000'],
    });
    const registered = await server.client.callTool(
      { name: 'register', arguments: { username: 'mcp-waiter', watch: 'on-demand' } },
      undefined,
      { timeout: 60_000 },
    );
    expect(registered.isError, resultText(registered)).toBeFalsy();
    address = String(structured(registered).inbox);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function deliver(subject: string): Promise<number> {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({ from: 'Carol <carol@outside.test>', to: address, subject, text: 'hello' });
    transport.close();
    return performance.now();
  }

  /** Resolves once the server logs (debug) that the wait begun after `offset` in its stderr is past its first look. */
  function lookedOnce(offset: number): Promise<true> {
    return pollUntil(
      () => (server!.stderr().slice(offset).includes('wait_for_mail: looked once') ? true : undefined),
      10_000,
      'the server to be waiting',
    );
  }

  it('reports progress while waiting and answers within 1.5 s of a delivery, fenced like list_new', async () => {
    const progress: string[] = [];
    const offset = server!.stderr().length;
    const call = server!.client
      .callTool(
        { name: 'jmap_request', arguments: { ops_file: 'wait_for_mail', vars: { TIMEOUT_SECONDS: 30 } } },
        undefined,
        {
          timeout: 60_000,
          onprogress: (p) => progress.push(p.message ?? ''),
        },
      )
      .then((result) => ({ result, at: performance.now() }));
    await lookedOnce(offset);
    const deliveredAt = await deliver('MCP awaited');
    const { result, at } = await call;
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(at - deliveredAt).toBeLessThan(1500);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatch(/Waiting for new mail \(push\)/);
    const text = resultText(result);
    expect(text).toMatch(/^OK: 1 new message from others after .* push/);
    expect(text).toMatch(/<<<UNTRUSTED-MAIL-[0-9a-f]+\n[\s\S]*MCP awaited/);
    expect(structured(result)).toMatchObject({
      ok: true,
      preset: 'wait_for_mail',
      waited: { mode: 'push', seconds: 3, clamped: true },
    });
  });

  it('clamps a long wait to the per-call budget and says to call again, without repeating returned mail', async () => {
    const started = performance.now();
    const result = await server!.client.callTool(
      { name: 'jmap_request', arguments: { ops_file: 'wait_for_mail', vars: { TIMEOUT_SECONDS: 600 } } },
      undefined,
      { timeout: 60_000 },
    );
    const took = performance.now() - started;
    const text = resultText(result);
    expect(result.isError, text).toBeFalsy();
    expect(text).toMatch(/no new mail in 3 s .*call again to keep waiting/);
    expect(text).not.toContain('MCP awaited');
    expect(took).toBeGreaterThanOrEqual(2900);
    expect(took).toBeLessThan(8000);
  });

  it('stops waiting within 1 s of a cancel, and stays usable', async () => {
    const controller = new AbortController();
    const offset = server!.stderr().length;
    const call = server!.client.callTool(
      { name: 'jmap_request', arguments: { ops_file: 'wait_for_mail', vars: { TIMEOUT_SECONDS: 30 } } },
      undefined,
      { timeout: 60_000, signal: controller.signal },
    );
    call.catch(() => undefined);
    await lookedOnce(offset);
    const before = server!.stderr().length;
    const cancelledAt = performance.now();
    controller.abort();
    // The server logs the end of the call (debug): it must come within a second of the cancel.
    await pollUntil(
      () => (/jmap_request failed after \d+ ms: cancelled/.test(server!.stderr().slice(before)) ? true : undefined),
      5000,
      'the server to end the cancelled wait',
    );
    expect(performance.now() - cancelledAt).toBeLessThan(1000);
    const help = await server!.client.callTool({ name: 'help', arguments: { topic: 'presets' } });
    expect(resultText(help)).toContain('## wait_for_mail');
    expect(resultText(help)).toContain('## list_sent');
  });
});
