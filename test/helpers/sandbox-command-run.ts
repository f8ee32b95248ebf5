import { Writable } from 'node:stream';
import { runSandboxCommand } from '../../sandbox/src/sandbox-command.js';
import type { SandboxCommandOptions } from '../../sandbox/src/sandbox-command-input.js';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';

/** The `--json` ready line of `agent-mailbox sandbox`, the parts these tests read. */
export interface SandboxReady {
  authUrl: string;
  apiUrl: string;
  mcpUrl: string;
  smtpPort: number;
  domain: string;
  credentialsDir: string;
  settingsFile: string;
}

export interface SandboxCommandRun {
  ready: SandboxReady;
  stderr(): string;
  /** Stops it as Ctrl+C does; resolves to the command's exit code. */
  stop(): Promise<number>;
}

function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * `agent-mailbox sandbox --json …` run in the test process (the command's own code, what writes
 * sandbox.json and client.env), until its ready line is out. Rejects with its stderr if it exits first.
 */
export async function runSandboxCommandUntilReady(options: SandboxCommandOptions): Promise<SandboxCommandRun> {
  const stdout = collector();
  const stderr = collector();
  const controller = new AbortController();
  let exitCode: number | undefined;
  const finished = runSandboxCommand(
    { ...options, json: true },
    { stdout: stdout.stream, stderr: stderr.stream, signal: controller.signal },
  ).then((code) => (exitCode = code));
  const line = await pollUntil(
    () => {
      if (exitCode !== undefined) throw new Error(`the sandbox exited (${exitCode}): ${stderr.text()}`);
      return stdout.text().includes('\n') ? stdout.text() : undefined;
    },
    20_000,
    'the sandbox ready line',
  );
  return {
    ready: JSON.parse(line) as SandboxReady,
    stderr: stderr.text,
    stop: async () => {
      controller.abort();
      return finished;
    },
  };
}

/** Runs it to the end when it cannot start: its exit code and stderr. */
export async function runSandboxCommandFailing(
  options: SandboxCommandOptions,
): Promise<{ code: number; stderr: string }> {
  const stdout = collector();
  const stderr = collector();
  const controller = new AbortController();
  const code = await runSandboxCommand(
    { ...options, json: true },
    { stdout: stdout.stream, stderr: stderr.stream, signal: controller.signal },
  );
  return { code, stderr: stderr.text() };
}
