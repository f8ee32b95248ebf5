import { spawn } from 'node:child_process';
import { readFileSync, appendFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { builtCli } from '../helpers/run-cli.js';

/**
 * Runs the built client as a real process (CLI or MCP server) and measures what the issue asks
 * for: wall time to the answer and the child's peak resident memory (VmHWM). A guard kills a child
 * that passes 600 MB or 90 s, so a broken client cannot take the shared machine down.
 * FAULT_BIN runs another build (the "before" figures); FAULT_FIGURES appends a JSON line per run.
 */
const bin = process.env.FAULT_BIN ?? builtCli;
const guardMb = 600;
const guardMs = 90_000;

export interface Measured {
  ms: number;
  peakMb: number;
  guardKilled: boolean;
}

function watchMemory(pid: number, kill: () => void): { stop(): number; killed(): boolean } {
  let peakKb = 0;
  let killed = false;
  const started = Date.now();
  // Polling only observes the child; nothing waits on it for synchronisation.
  const timer = setInterval(() => {
    try {
      const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      peakKb = Math.max(peakKb, kb);
    } catch {
      return; // exited
    }
    if (peakKb > guardMb * 1024 || Date.now() - started > guardMs) {
      killed = true;
      kill();
    }
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.round(peakKb / 1024);
    },
    killed: () => killed,
  };
}

/** Appends one run's figures and outcome to FAULT_FIGURES (the before/after note of issue 10). */
export function noteFigures(figures: Record<string, unknown>): void {
  const file = process.env.FAULT_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify(figures)}\n`);
}

export interface CliMeasured extends Measured {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCliMeasured(args: string[], env: Record<string, string>): Promise<CliMeasured> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const memory = watchMemory(child.pid ?? 0, () => child.kill('SIGKILL'));
    child.on('error', reject);
    child.on('close', (code) => {
      const measured = { ms: Date.now() - started, peakMb: memory.stop(), guardKilled: memory.killed() };
      resolve({ code: code ?? -1, stdout, stderr, ...measured });
    });
  });
}

export interface McpMeasured extends Measured {
  isError: boolean;
  /** Every text the server returned (content and structuredContent) plus its stderr. */
  output: string;
  text: string;
}

export async function runMcpMeasured(
  tool: string,
  args: Record<string, unknown>,
  env: Record<string, string>,
): Promise<McpMeasured> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp'],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'fault-suite', version: '0' });
  await client.connect(transport);
  const pid = transport.pid ?? 0;
  const memory = watchMemory(pid, () => process.kill(pid, 'SIGKILL'));
  const started = Date.now();
  let isError = true;
  let text = '';
  let output = '';
  try {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: guardMs + 5_000 });
    isError = result.isError === true;
    text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
    output = `${text}\n${JSON.stringify(result.structuredContent ?? {})}`;
  } catch (error) {
    text = `call failed: ${(error as Error).message}`;
    output = text;
  }
  const measured = { ms: Date.now() - started, peakMb: memory.stop(), guardKilled: memory.killed() };
  await client.close().catch(() => undefined);
  return { isError, text, output: `${output}\n${stderr}`, ...measured };
}

/**
 * The first leak of a secret in `output`: the secret, or any 12-character stretch of it, or
 * anything shaped like a JWT part or an apiKey. Returns undefined when clean.
 */
export function findLeak(output: string, secrets: Iterable<string>): string | undefined {
  const shaped = /eyJ[A-Za-z0-9_-]{8,}|amk_[A-Za-z0-9_-]{6,}/.exec(output);
  if (shaped) return `secret-shaped text: ${shaped[0].slice(0, 10)}…`;
  for (const secret of secrets) {
    for (const part of secret.split('.')) {
      for (let i = 0; i + 12 <= part.length; i += 1) {
        if (output.includes(part.slice(i, i + 12))) return `a piece of a known secret (${part.slice(i, i + 4)}…)`;
      }
    }
  }
  return undefined;
}
