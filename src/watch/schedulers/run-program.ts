import { spawn } from 'node:child_process';

export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The program could not be started at all (not on PATH, not executable). */
class ProgramMissing extends Error {}

/** Runs a system program with these arguments, no shell between; the caller's PATH decides which program runs. */
export function runProgram(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  input?: string,
): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    // spawn leaves out variables whose value is undefined.
    const child = spawn(bin, [...args], { env: { ...env }, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' || error.code === 'EACCES' ? new ProgramMissing(error.message) : error);
    });
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout: decode(Buffer.concat(stdout)), stderr: decode(Buffer.concat(stderr)) }),
    );
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

/** Runs the program as runProgram does; undefined when it cannot be started at all. */
export async function runIfPresent(...run: Parameters<typeof runProgram>): Promise<ProgramRun | undefined> {
  try {
    return await runProgram(...run);
  } catch (error) {
    if (error instanceof ProgramMissing) return undefined;
    throw error;
  }
}

/** Windows programs may write UTF-16 (with a byte order mark, or ASCII with a zero after each byte); others UTF-8. */
function decode(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes.length >= 2 && bytes[0] !== 0 && bytes[1] === 0) return bytes.toString('utf16le');
  return bytes.toString('utf8');
}
