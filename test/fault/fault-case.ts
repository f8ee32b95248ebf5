import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import type { FaultServer } from './fault-servers.js';
import { findLeak, noteFigures, runCliMeasured, runMcpMeasured } from './run-measured.js';

/**
 * Every fault case runs at a 1 s timeout ("done when": within 3 × timeout plus backoff, < 25 s). The
 * time a case takes is mostly this deadline firing, so it is as short as a loaded machine allows for
 * the healthy legs that go to the real sandbox (tokens on disk, at most a capability refresh).
 */
export const timeoutMs = 1_000;
export const maxMs = 25_000;
export const maxPeakMb = 250;

export interface SandboxUrls {
  authUrl: string;
  apiUrl: string;
  salt: string;
  domain: string;
}

/**
 * A fresh, not yet existing credentials directory in its own temp parent, removed when the test
 * (or, at a file's top level, the file) ends.
 */
export async function freshDir(): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'agent-mailbox-fault-'));
  cleanUpAfter(() => rm(parent, { recursive: true, force: true }));
  return join(parent, 'credentials');
}

export function baseEnv(sandbox: SandboxUrls): Record<string, string> {
  return {
    AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
    AGENT_MAILBOX_API_URL: sandbox.apiUrl,
    AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
    AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
    AGENT_MAILBOX_TIMEOUT_MS: String(timeoutMs),
    AGENT_MAILBOX_CRONTAB: '/nonexistent/crontab',
  };
}

/** Registers one inbox against the real sandbox (in this process: setup); cases work on copies of its directory. */
export async function registeredDir(sandbox: SandboxUrls, username: string): Promise<string> {
  const dir = await freshDir();
  const run = await runCliInProcess(
    ['register', '--username', username, '--watch', 'on-demand', '--credentials-dir', dir],
    { env: baseEnv(sandbox) },
  );
  if (run.code !== 0) throw new Error(`setup register failed: ${run.stderr}`);
  return dir;
}

export async function copyDir(from: string, drop: string[] = []): Promise<string> {
  const dir = await freshDir();
  await cp(from, dir, { recursive: true });
  for (const name of drop) await rm(join(dir, name), { force: true });
  return dir;
}

/** The apiKey and every token in a directory. */
export async function secretsIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => '');
    const apiKey = /"apiKey"\s*:\s*"([^"]+)"/.exec(text)?.[1];
    if (apiKey) found.push(apiKey);
    if (name.endsWith('.jwt')) found.push(text.trim());
  }
  return found;
}

export interface FaultCase {
  name: string;
  /** Operation through the doors: read the inbox, or sign up `username`. */
  op: { kind: 'jmap' } | { kind: 'register'; username: string };
  env: Record<string, string>;
  /** A fresh credentials directory for each door. */
  dir: () => Promise<string>;
  fault: FaultServer;
  code: RegExp;
  /** What the message must say happened. */
  says: RegExp;
}

/** Runs a case through the CLI and the MCP server at once and checks every promise of issue 10. */
export async function expectBothDoorsKeepPromises(c: FaultCase): Promise<void> {
  const [cliDir, mcpDir] = await Promise.all([c.dir(), c.dir()]);
  const cliArgs =
    c.op.kind === 'jmap'
      ? ['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', cliDir]
      : ['register', '--username', c.op.username, '--watch', 'on-demand', '--credentials-dir', cliDir];
  const mcpArgs =
    c.op.kind === 'jmap'
      ? { ops_file: 'list_inbox', credentials_dir: mcpDir }
      : { username: `${c.op.username}m`, watch: 'on-demand', credentials_dir: mcpDir };
  const [cli, mcp] = await Promise.all([
    runCliMeasured(cliArgs, c.env),
    runMcpMeasured(c.op.kind === 'jmap' ? 'jmap_request' : 'register', mcpArgs, c.env),
  ]);
  const secrets = [...c.fault.seen, ...(await secretsIn(cliDir)), ...(await secretsIn(mcpDir))];

  const cliOut = `${cli.stdout}\n${cli.stderr}`;
  const cliCode = /"code": "([a-z_]+)"/.exec(cli.stdout)?.[1];
  const mcpCode = /"code":"([a-z_]+)"/.exec(mcp.output)?.[1];
  noteFigures({
    name: c.name,
    door: 'cli',
    ms: cli.ms,
    peakMb: cli.peakMb,
    guardKilled: cli.guardKilled,
    exit: cli.code,
    code: cliCode,
    leak: findLeak(cliOut, secrets) ?? null,
  });
  noteFigures({
    name: c.name,
    door: 'mcp',
    ms: mcp.ms,
    peakMb: mcp.peakMb,
    guardKilled: mcp.guardKilled,
    isError: mcp.isError,
    code: mcpCode,
    leak: findLeak(mcp.output, secrets) ?? null,
  });
  expect(cli.guardKilled, `${c.name} CLI had to be killed (${cli.peakMb} MB, ${cli.ms} ms)`).toBe(false);
  expect(cli.ms, `${c.name} CLI time`).toBeLessThan(maxMs);
  expect(cli.peakMb, `${c.name} CLI peak RSS`).toBeLessThan(maxPeakMb);
  expect(cli.code, `${c.name} CLI exit\n${cliOut}`).toBe(1);
  const error = (JSON.parse(cli.stdout) as { error: { code: string; message: string; hint: string } }).error;
  expect(error.code, cliOut).toMatch(c.code);
  expect(error.message).toMatch(c.says);
  expect(error.hint.length, 'a next step').toBeGreaterThan(10);
  expect(findLeak(cliOut, secrets), `${c.name} CLI leaked`).toBeUndefined();

  expect(mcp.guardKilled, `${c.name} MCP had to be killed (${mcp.peakMb} MB, ${mcp.ms} ms)`).toBe(false);
  expect(mcp.ms, `${c.name} MCP time`).toBeLessThan(maxMs);
  expect(mcp.peakMb, `${c.name} MCP peak RSS`).toBeLessThan(maxPeakMb);
  expect(mcp.isError, `${c.name} MCP isError\n${mcp.text}`).toBe(true);
  expect(mcp.text).toMatch(c.says);
  expect(mcp.text).toMatch(/Next: \S/);
  expect(findLeak(mcp.output, secrets), `${c.name} MCP leaked`).toBeUndefined();
}
