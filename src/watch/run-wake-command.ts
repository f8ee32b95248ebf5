import { spawn } from 'node:child_process';
import { shellQuote } from '../render/shell-quote.js';

export interface RunWakeCommandOptions {
  /** The operator's command line, run by /bin/sh; placeholders are replaced shell-quoted. */
  command: string;
  prompt: string;
  digestPath: string;
  credentialsDir: string;
  /** The environment of the wake process; PATH may be replaced by `path`. */
  env: Readonly<Record<string, string | undefined>>;
  /** PATH recorded at install time (cron's own PATH is nearly empty). */
  path?: string;
  /** Receives the agent's stdout and stderr (the CLI passes stderr, which cron appends to wake.log). */
  output?: { write(text: string): unknown };
  signal?: AbortSignal;
}

export interface WakeCommandRun {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
}

/** The command line with `{prompt}`, `{digest}` and `{credentials_dir}` replaced, each shell-quoted. */
export function expandWakeCommand(
  command: string,
  values: { prompt: string; digestPath: string; credentialsDir: string },
): string {
  return command
    .replaceAll('{prompt}', shellQuote(values.prompt))
    .replaceAll('{digest}', shellQuote(values.digestPath))
    .replaceAll('{credentials_dir}', shellQuote(values.credentialsDir));
}

/** Runs the agent command once and reports how it ended; never throws for a non-zero exit. */
export function runWakeCommand(options: RunWakeCommandOptions): Promise<WakeCommandRun> {
  const line = expandWakeCommand(options.command, options);
  const env = {
    ...options.env,
    PATH: options.path || (options.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'),
    AGENT_MAILBOX_WAKE_PROMPT: options.prompt,
    AGENT_MAILBOX_DIGEST: options.digestPath,
    AGENT_MAILBOX_CREDENTIALS_DIR: options.credentialsDir,
  };
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout or cancel stops the agent and everything it started.
    const child = spawn('/bin/sh', ['-c', line], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let timedOut = false;
    const kill = (): void => {
      if (child.pid !== undefined)
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          child.kill('SIGTERM');
        }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, 30 * 60_000);
    options.signal?.addEventListener('abort', kill, { once: true });
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (d: Buffer) => options.output?.write(d.toString('utf8')));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      resolve({ exitCode, signal, timedOut, durationMs: Date.now() - started });
    });
  });
}
