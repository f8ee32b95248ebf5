import { constants } from 'node:os';
import type { Writable } from 'node:stream';

export interface SandboxBinRun {
  bin: string;
  nodePath: string;
  args: string[];
  env: Readonly<Record<string, string | undefined>>;
  stdout: Writable;
  stderr: Writable;
  /** Aborting stops the sandbox as Ctrl+C does (SIGTERM), and waits for it to close. */
  signal: AbortSignal;
}

/** Runs the sandbox's bin to its end with its output on the given streams; resolves to its exit code. */
export async function runSandboxBin(run: SandboxBinRun): Promise<number> {
  // Imported here: node:child_process brings node's socket and datagram modules to every start otherwise.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(run.nodePath, [run.bin, ...run.args], {
      env: run.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => run.stdout.write(chunk));
    child.stderr.on('data', (chunk: Buffer) => run.stderr.write(chunk));
    const stop = (): void => void child.kill('SIGTERM');
    if (run.signal.aborted) stop();
    else run.signal.addEventListener('abort', stop, { once: true });
    child.once('error', (error) => {
      run.signal.removeEventListener('abort', stop);
      reject(error);
    });
    child.once('close', (code, signal) => {
      run.signal.removeEventListener('abort', stop);
      // Killed by a signal: its number as a shell reports it.
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}
