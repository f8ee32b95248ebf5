import { spawn } from 'node:child_process';

/** How one run of a scheduler's program ended. */
export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The program could not be started at all (not on PATH, not executable). */
export class ProgramMissing extends Error {}

/**
 * Runs a system program (launchctl, schtasks) with exactly these arguments, no shell in between, and
 * the caller's environment: its PATH decides which program runs, as for the crontab setting.
 */
export function runProgram(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
    const child = spawn(bin, [...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' || error.code === 'EACCES' ? new ProgramMissing(error.message) : error);
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
