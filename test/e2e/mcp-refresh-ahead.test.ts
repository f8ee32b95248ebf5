import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { connectMcp, printStderrOnFailure, resultText, sandboxEnv, type McpConnection } from '../helpers/connect-mcp.js';
import { decodeJwt, pollUntil, startTestSandbox } from '../helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// Issue 4: while the server is in use, the session is renewed in the background before it
// expires, so no request waits for a proof of work. Short TTLs make several expiries fit in a test;
// the background login then has only the gap between the refresh-ahead window (last 50 %) and the
// session's renewal margin (last 10 %) to finish, so the PoW is kept small (difficulty 2).
const sessionTtlSeconds = 10;
const sandbox = await startTestSandbox({ difficulty: 2, sessionTtlSeconds, capabilityTtlSeconds: 2 });

const cheapOps = JSON.stringify([['Mailbox/get', { accountId: '$ACCOUNT_ID', ids: [] }, 'm']]);

interface Sample {
  startedAt: number;
  latencyMs: number;
  endedAt: number;
  /** Seconds the stored session had left right after the call. */
  sessionLeftSeconds: number;
}

/** Seconds until the stored session JWT of `dir` expires. */
async function sessionLeftSeconds(dir: string): Promise<number> {
  const claims = decodeJwt((await readFile(join(dir, 'session.jwt'), 'utf8')).trim());
  return Number(claims['exp']) - Date.now() / 1000;
}

describe('refresh-ahead in the MCP server', () => {
  let server: McpConnection | undefined;
  printStderrOnFailure(() => [server]);
  afterAll(async () => {
    await server?.close();
  });

  it('keeps a steady stream of requests free of proof-of-work waits across several session expiries', async () => {
    const dir = await tempCredentialsDir();
    server = await connectMcp({ env: sandboxEnv(sandbox, dir) });
    const registered = await server.client.callTool({ name: 'register', arguments: { username: 'steady-agent', watch: 'on-demand' } });
    expect(registered.isError, resultText(registered)).toBeFalsy();
    const afterRegister = sandbox.stats();

    // The sandbox runs in this process: poll its counters finely to timestamp each login and mint.
    const events: { at: number; kind: 'login' | 'mint' }[] = [];
    let last = sandbox.stats();
    const watcher = setInterval(() => {
      const now = sandbox.stats();
      if (now.logins > last.logins) events.push({ at: Date.now(), kind: 'login' });
      if (now.capabilitiesIssued > last.capabilitiesIssued) events.push({ at: Date.now(), kind: 'mint' });
      last = now;
    }, 2);
    onTestFinished(() => clearInterval(watcher));

    const samples: Sample[] = [];
    const runUntil = Date.now() + sessionTtlSeconds * 3.5 * 1000;
    while (Date.now() < runUntil) {
      const startedAt = Date.now();
      const result = await server.client.callTool({ name: 'jmap_request', arguments: { ops: cheapOps } });
      const latencyMs = Date.now() - startedAt;
      expect(result.isError, resultText(result)).toBeFalsy();
      samples.push({ startedAt, endedAt: Date.now(), latencyMs, sessionLeftSeconds: await sessionLeftSeconds(dir) });
      // A steady stream, not a flood: most of the time no call is in flight, so a background
      // login that finishes between calls is never mistaken for one a call waited on.
      const next = Date.now() + 150;
      await pollUntil(() => (Date.now() >= next ? true : undefined), 1_000, 'the next request slot');
    }

    const end = sandbox.stats();
    const latencies = samples.map((s) => s.latencyMs).sort((a, b) => a - b);
    const t0 = samples[0]?.startedAt ?? 0;
    const slow = samples.filter((s) => s.latencyMs > 500).map((s) => `+${((s.startedAt - t0) / 1000).toFixed(1)}s:${s.latencyMs}ms`);
    const minLeft = Math.min(...samples.map((s) => s.sessionLeftSeconds));
    const figures = `slow=[${slow.join(' ')}] minSessionLeft=${minLeft.toFixed(2)}s calls=${samples.length} median=${latencies[Math.floor(latencies.length / 2)]}ms p95=${latencies[Math.floor(latencies.length * 0.95)]}ms max=${latencies.at(-1)}ms logins=${end.logins - afterRegister.logins}`;
    // Three expiries passed; each session was replaced by a PoW login...
    expect(end.logins - afterRegister.logins, figures).toBeGreaterThanOrEqual(3);
    // ...that no call waited for. A call has to wait (for its own PoW or the background one) only
    // when the stored session is inside its renewal margin (the last 10 % of its life,
    // src/auth/token-chain.ts) as it starts; it then sees the login land and only after it gets
    // its capability minted. The sandbox's counters give the order; the previous sample bounds
    // how much session was left.
    const marginSeconds = sessionTtlSeconds * 0.1;
    const waited = samples.filter((s, i) => {
      const previous = samples[i - 1];
      const leftAtStart = previous ? previous.sessionLeftSeconds - (s.startedAt - previous.endedAt) / 1000 : Infinity;
      if (leftAtStart > marginSeconds + 0.25) return false;
      return events.some(
        (login) =>
          login.kind === 'login' &&
          login.at >= s.startedAt &&
          login.at <= s.endedAt &&
          events.some((mint) => mint.kind === 'mint' && mint.at >= login.at && mint.at <= s.endedAt),
      );
    });
    expect(waited, figures).toEqual([]);
    expect(latencies.at(-1), figures).toBeLessThan(1_000);
  });
});
