import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';
import { createAccountRegistry } from '../src/auth/create-account-registry.js';
import { silentLogger } from '../src/log.js';
import { startSandbox } from '../sandbox/src/start-sandbox.js';

/**
 * What one jmap_request through the spawned stdio server costs on top of the
 * same JMAP request sent straight to the sandbox with a capability token. Both are measured in
 * one run, interleaved call by call, so machine load affects them alike.
 */

export interface McpOverheadFigures {
  iterations: number;
  rawMedianMs: number;
  mcpMedianMs: number;
  /** Median of the per-pair differences (MCP call minus the raw call next to it). */
  overheadMedianMs: number;
  overheadP90Ms: number;
}

export interface McpOverheadBenchOptions {
  iterations?: number;
  /** Receives progress lines (the runner prints them on stderr). */
  log?: (line: string) => void;
}

const sessionSchema = z.looseObject({ apiUrl: z.string(), primaryAccounts: z.record(z.string(), z.string()) });
const methodCalls = (accountId: string): unknown[] => [['Mailbox/get', { accountId, ids: [] }, 'm']];
const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'];

/** Runs the bench against a fresh in-process sandbox; returns the section title, lines and figures. */
export async function runMcpOverheadBench(
  options: McpOverheadBenchOptions = {},
): Promise<{ title: string; lines: string[]; figures: McpOverheadFigures }> {
  const iterations = options.iterations ?? 300;
  const log = options.log ?? (() => undefined);
  const sandbox = await startSandbox({ difficulty: 4 });
  const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-bench-'));
  const credentialsDir = join(workDir, 'credentials');
  const env = {
    AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
    AGENT_MAILBOX_API_URL: sandbox.apiUrl,
    AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
    AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
    AGENT_MAILBOX_CREDENTIALS_DIR: credentialsDir,
  };
  const registry = createAccountRegistry({ configInputs: { env, flags: {} }, log: silentLogger });
  let client: Client | undefined;
  try {
    const account = registry.open(credentialsDir);
    await account.register({ username: 'bench-agent', watch: 'on-demand' });
    const sessionResponse = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
      headers: { authorization: `Bearer ${await account.capability()}` },
    });
    const session = sessionSchema.parse(await sessionResponse.json());
    const accountId = session.primaryAccounts['urn:ietf:params:jmap:mail'];
    if (!accountId) throw new Error('the sandbox session names no mail account');
    const apiUrl = new URL(session.apiUrl, sandboxSessionUrl(sandbox.apiUrl)).href;

    const raw = async (): Promise<number> => {
      const started = performance.now();
      const response = await fetch(apiUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${await account.capability()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ using, methodCalls: methodCalls(accountId) }),
      });
      await response.json();
      if (!response.ok) throw new Error(`raw JMAP answered ${response.status}`);
      return performance.now() - started;
    };

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [fileURLToPath(new URL('../bin.js', import.meta.url)), 'mcp'],
      env,
      stderr: 'ignore',
    });
    client = new Client({ name: 'agent-mailbox-bench', version: '0' });
    await client.connect(transport);
    const mcpClient = client;
    const ops = JSON.stringify(methodCalls('$ACCOUNT_ID'));
    const viaMcp = async (): Promise<number> => {
      const started = performance.now();
      const result = await mcpClient.callTool({ name: 'jmap_request', arguments: { ops } });
      if (result.isError) throw new Error(`jmap_request failed: ${JSON.stringify(result.content).slice(0, 500)}`);
      return performance.now() - started;
    };

    log(`mcp overhead: warming up, then ${iterations} interleaved pairs`);
    for (let i = 0; i < 5; i++) {
      await raw();
      await viaMcp();
    }
    const rawTimes: number[] = [];
    const mcpTimes: number[] = [];
    const differences: number[] = [];
    for (let i = 0; i < iterations; i++) {
      // Alternate which goes first, so neither always follows the other's warm cache.
      const [a, b] = i % 2 === 0 ? [await raw(), await viaMcp()] : swap(await viaMcp(), await raw());
      rawTimes.push(a);
      mcpTimes.push(b);
      differences.push(b - a);
    }
    const figures: McpOverheadFigures = {
      iterations,
      rawMedianMs: round(quantile(rawTimes, 0.5)),
      mcpMedianMs: round(quantile(mcpTimes, 0.5)),
      overheadMedianMs: round(quantile(differences, 0.5)),
      overheadP90Ms: round(quantile(differences, 0.9)),
    };
    return {
      title: 'MCP server overhead per jmap_request (stdio, vs raw JMAP to the same sandbox)',
      lines: [
        `raw JMAP round trip (fetch + capability token): median ${figures.rawMedianMs} ms`,
        `jmap_request through the spawned MCP server:   median ${figures.mcpMedianMs} ms`,
        `overhead per call: median ${figures.overheadMedianMs} ms, p90 ${figures.overheadP90Ms} ms (${iterations} interleaved pairs, Mailbox/get)`,
      ],
      figures,
    };
  } finally {
    await client?.close().catch(() => undefined);
    registry.close();
    await sandbox.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

function sandboxSessionUrl(apiUrl: string): string {
  return `${apiUrl.replace(/\/$/, '')}/.well-known/jmap`;
}

function swap(mcp: number, raw: number): [number, number] {
  return [raw, mcp];
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
