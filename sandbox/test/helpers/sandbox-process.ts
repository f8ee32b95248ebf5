import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { pollUntil } from './sandbox.js';

/**
 * Runs a built sandbox entry (`node <entry> … --json`) as a real process until its one-line JSON
 * ready line is out, hands that line to `check`, then stops it with SIGTERM and expects exit 0.
 * Resolves to everything it printed on stdout. A process still running afterwards is killed.
 */
export async function withReadyLine<Ready>(
  args: string[],
  check: (ready: Ready) => Promise<void>,
  env: Record<string, string | undefined> = { PATH: process.env['PATH'], HOME: process.env['HOME'] },
): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const line = await pollUntil(
      () => {
        if (child.exitCode !== null) throw new Error(`the sandbox exited early (${child.exitCode}): ${stderr}`);
        return stdout.includes('\n') ? stdout : undefined;
      },
      20_000,
      'the ready line',
    );
    await check(JSON.parse(line) as Ready);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    return stdout;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
