import { spawn, spawnSync } from 'node:child_process';
import { builtCli, noCrontab, type CliRun } from './run-cli.js';

/**
 * Runs the built CLI inside a pseudo-terminal, as an operator at a terminal would: util-linux's
 * `script` gives the command a pty for stdin and stderr, and `answer` is what the operator types.
 */

/** Why pty tests cannot run here, or undefined when `script` is available. */
export function terminalSkipReason(): string | undefined {
  return spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0
    ? undefined
    : 'util-linux script(1) is not installed';
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function runCliInTerminal(
  args: string[],
  options: { env: Record<string, string>; answer: string; timeoutMs?: number },
): Promise<CliRun> {
  const line = [process.execPath, builtCli, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', line, '/dev/null'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENT_MAILBOX_CRONTAB: noCrontab, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, json: undefined });
    });
    // The answer goes in once the command asks; typed earlier, the terminal still holds it for the prompt.
    child.stdin.end(options.answer);
  });
}
