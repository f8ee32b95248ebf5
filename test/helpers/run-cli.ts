import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli as runCliEntry } from '../../src/cli/main.js';
import { forgetAllSecrets } from '../../src/redact.js';

/** The built CLI entry; `npm test` builds before running vitest. */
export const builtCli = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

/** The package's bin file: what the CLI names in the command lines it suggests from a checkout. */
export const repoBin = fileURLToPath(new URL('../../bin/agent-mailbox.js', import.meta.url));

/** A crontab program that does not exist: the default for every spawned CLI and MCP server in tests. */
export const noCrontab = '/nonexistent/agent-mailbox-test/crontab';

/**
 * A CLI's environment with nothing reachable (an unroutable auth and JMAP host) and no inbox in its
 * credentials directory, all under `root`: a command there loads its code and stops at the account.
 */
export function offlineCliEnv(root: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: root,
    AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:9',
    AGENT_MAILBOX_API_URL: 'http://127.0.0.1:9',
    AGENT_MAILBOX_CREDENTIALS_DIR: join(root, 'credentials'),
    AGENT_MAILBOX_CRONTAB: noCrontab,
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RunCliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
  /** Called with all of stderr so far each time more arrives: a test can act once the CLI reports a stage (e.g. with AGENT_MAILBOX_DEBUG). */
  onStderr?: (chunk: string) => void;
}

/**
 * A minimal environment, like an agent host gives: only what the test passes plus PATH/HOME. No
 * test may reach the invoking user's crontab: without a test crontab, watch finds none.
 */
function cliEnv(env: RunCliOptions['env']): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME, AGENT_MAILBOX_CRONTAB: noCrontab, ...env };
}

/** A finished run, with stdout parsed when it is JSON. */
function cliRun(code: number, stdout: string, stderr: string): CliRun {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** Runs `node dist/bin.js …args` as a real subprocess and collects its output. */
export function runCli(args: string[], options: RunCliOptions = {}): Promise<CliRun> {
  return runProcess(process.execPath, [builtCli, ...args], options);
}

/**
 * Runs the CLI's own entry (the code the build bundles, argv to exit code) inside the test process,
 * with its output captured: for steps where what is tested is the command, not the process. A
 * spawned node costs 0.35–0.65 CPU-seconds, the bulk of the suite's time on 2 cores. Only `env` and
 * `cwd` of the options apply; the process-level parts (exit, stdout flushing, signals, the help
 * pages of bin.ts) are tested through runCli.
 */
export async function runCliInProcess(
  args: string[],
  options: Pick<RunCliOptions, 'env' | 'cwd'> = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  // A process starts knowing no secret; files that ran earlier in this worker taught it their fixtures'.
  forgetAllSecrets();
  const code = await runCliEntry({
    env: cliEnv(options.env),
    argv: args,
    cwd: options.cwd,
    cliPath: builtCli,
    streams: {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    },
  });
  return cliRun(code, stdout, stderr);
}

/** Runs a command line through sh, as an agent pastes a suggested command into its shell. */
export function runShell(commandLine: string, env: Record<string, string | undefined>, cwd?: string): Promise<CliRun> {
  return runProcess('sh', ['-c', commandLine], { env, ...(cwd !== undefined ? { cwd } : {}) });
}

function runProcess(command: string, args: string[], options: RunCliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: cliEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      options.onStderr?.(stderr);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(cliRun(code ?? -1, stdout, stderr));
    });
    child.stdin.end(options.input ?? '');
  });
}
