import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectMcp,
  connectMcp2026,
  printStderrOnFailure,
  resultText,
  sandboxEnv,
  structured,
  type McpConnection,
  type McpConnection2026,
} from '../helpers/connect-mcp.js';
import { createFakeBackend, pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { busyCores } from '../helpers/process-cpu.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// A difficulty no test machine solves in minutes: the proof of work is still running whenever the
// test acts. Each server is closed right after its test, so no background solve outlives it.
// No sign-up ever completes, so the auth host alone is enough (no mail store).
const sandbox = await startTestSandbox({ difficulty: 22, createBackend: createFakeBackend().factory });
// One solver thread: these tests watch progress and cancellation, which do not depend on the
// thread count, and a second thread at full speed for ~8 s only slows the tests running beside them.
const powEnv = (dir: string): Record<string, string> => ({
  ...sandboxEnv(sandbox, dir),
  AGENT_MAILBOX_POW_WORKERS: '1',
});

describe('a proof of work behind register', () => {
  let server: McpConnection | McpConnection2026 | undefined;
  printStderrOnFailure(() => [server]);
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('reports progress at least every 2 s with tried, expected and an ETA, and stops within 1 s of a cancel', async () => {
    const dir = await tempCredentialsDir();
    server = await connectMcp({ env: powEnv(dir) });
    const notices: { at: number; progress: number; total?: number; message?: string }[] = [];
    const controller = new AbortController();
    const call = server.client.callTool(
      { name: 'register', arguments: { username: 'slow-agent', watch: 'on-demand' } },
      undefined,
      {
        signal: controller.signal,
        resetTimeoutOnProgress: true,
        onprogress: (p) => notices.push({ at: Date.now(), ...p }),
      },
    );
    call.catch(() => undefined);
    // Three notices: two intervals to hold to the 2 s promise, each second of solving costs a core.
    await pollUntil(() => (notices.length >= 3 ? true : undefined), 20_000, 'three progress notifications');
    // The solver is really working: above the idle line the cancel is measured against (a tenth of a
    // core). Sampled until then: on a shared 2-core machine other processes can take its slices.
    await pollUntil(
      async () => ((await busyCores(server!.pid, 500)) > 0.2 ? true : undefined),
      20_000,
      'the solver to keep a fifth of a core busy',
    );

    const cancelledAt = Date.now();
    controller.abort('the user pressed stop');
    await expect(call).rejects.toThrow();

    for (let i = 1; i < notices.length; i++) {
      expect(notices[i]!.progress).toBeGreaterThan(notices[i - 1]!.progress);
      expect(notices[i]!.at - notices[i - 1]!.at).toBeLessThanOrEqual(2_300);
    }
    expect(notices.at(-1)?.message).toMatch(/\d+ hashes tried \(mean 4194304 for difficulty 22\).*(s left|estimating)/);
    expect(notices[0]?.total).toBe(4_194_304);

    // Idle = under a tenth of a core over 300 ms.
    const idleAt = await pollUntil(
      async () => ((await busyCores(server!.pid, 300)) < 0.1 ? Date.now() : undefined),
      5_000,
      'the server to go idle after the cancel',
    );
    expect(idleAt - cancelledAt).toBeLessThanOrEqual(1_000 + 300);

    // Locks released, no temp files, nothing half-written (the sign-up never completed).
    await pollUntil(
      async () => ((await safeReaddir(dir)).some((f) => f.endsWith('.lock')) ? undefined : true),
      3_000,
      'locks released',
    );
    const left = await safeReaddir(dir);
    expect(left.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(left).not.toContain('credentials.json');
    for (const file of left.filter((f) => f.endsWith('.json'))) {
      const text = await readFile(join(dir, file), 'utf8');
      expect(() => JSON.parse(text), file).not.toThrow();
    }

    // The server is still healthy.
    const help = await server.client.callTool({ name: 'help', arguments: { topic: 'presets' } });
    expect(help.isError, resultText(help)).toBeFalsy();
  });

  it('reports the same progress to a 2026-07-28 client and stops when that client cancels', async () => {
    const dir = await tempCredentialsDir();
    const modern = await connectMcp2026({ env: powEnv(dir) });
    server = modern;
    expect(modern.client.getProtocolEra()).toBe('modern');
    const notices: { progress: number; total?: number; message?: string }[] = [];
    const controller = new AbortController();
    const call = modern.client.callTool(
      { name: 'register', arguments: { username: 'modern-agent', watch: 'on-demand' } },
      { signal: controller.signal, resetTimeoutOnProgress: true, onprogress: (p) => notices.push(p) },
    );
    call.catch(() => undefined);
    await pollUntil(() => (notices.length >= 2 ? true : undefined), 20_000, 'two progress notifications');
    controller.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    expect(notices[1]!.progress).toBeGreaterThan(notices[0]!.progress);
    expect(notices[0]).toMatchObject({
      total: 4_194_304,
      message: expect.stringMatching(/^Solving proof of work: \d+ hashes tried/),
    });
    // The solve stopped: under a tenth of a core within a few seconds.
    await pollUntil(
      async () => ((await busyCores(modern.pid, 300)) < 0.1 ? true : undefined),
      5_000,
      'the server to go idle after the cancel',
    );
    const help = await modern.client.callTool({ name: 'help', arguments: {} });
    expect(help.isError, resultText(help)).toBeFalsy();
  });

  it('returns an actionable "call again" result when the proof of work outlasts the call budget', async () => {
    const dir = await tempCredentialsDir();
    server = await connectMcp({ env: powEnv(dir), args: ['--tool-deadline-ms', '1000'] });
    const started = Date.now();
    const result = await server.client.callTool({
      name: 'register',
      arguments: { username: 'late-agent', watch: 'on-demand' },
    });
    const took = Date.now() - started;
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({ error: { code: 'pow_too_slow', next: { operation: 'register' } } });
    expect(resultText(result)).toMatch(/call `register` with \{"username":"late-agent","watch":"on-demand"\}/);
    expect(took).toBeLessThan(1_000 + 2_000);
  });
});

async function safeReaddir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}
