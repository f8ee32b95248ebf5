import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** A long-running helper process (Cyrus master, the syslog sink) that cannot outlive us. */
export interface TetheredProcess {
  /** The pid of the command itself (not of its wrapper shell). */
  pid: number;
  /** Resolves with the command's exit status once it is gone. */
  exited: Promise<number>;
  /** Asks the command to stop (SIGTERM) and waits until it has exited. */
  stop(): Promise<void>;
}

/**
 * Runs `command` under a tiny shell that holds a pipe from this process: when the pipe closes
 * (close() or this process dying, even by SIGKILL), the shell sends the command SIGTERM and
 * waits for it. A test runner killed mid-run therefore leaves no Cyrus behind.
 */
export async function spawnTethered(
  command: string,
  args: string[],
  log: (line: string) => void,
  label: string,
): Promise<TetheredProcess> {
  // fd 3 keeps our pipe: background jobs of a non-interactive shell get /dev/null as stdin. The
  // reader job turns end-of-pipe into SIGTERM; the shell itself exits with the command's status.
  const script =
    'exec 3<&0; "$@" </dev/null & child=$!; echo "$child"; (read -r _ <&3; kill -TERM "$child" 2>/dev/null) & wait "$child"';
  // detached: its own process group. Cyrus's master signals its whole process group when it
  // shuts down, so without this, stopping one instance also stopped every other instance (and
  // test worker) that shared our group.
  const wrapper = spawn('/bin/sh', ['-c', script, 'tethered', command, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  wrapper.stderr.on('data', (chunk: Buffer) => log(`${label}: ${chunk.toString().trim()}`));
  const exited = once(wrapper, 'exit').then(([code]) => (typeof code === 'number' ? code : 1));
  const [first] = (await Promise.race([once(wrapper.stdout, 'data'), exited.then(() => [Buffer.from('')])])) as [
    Buffer,
  ];
  const pid = Number.parseInt(first.toString(), 10);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${label} did not start`);
  wrapper.stdout.resume();
  let stopping: Promise<void> | undefined;
  return {
    pid,
    exited,
    stop: () =>
      (stopping ??= (async () => {
        wrapper.stdin.end();
        // If the command ignores SIGTERM, it gets SIGKILL after a grace period.
        const timer = setTimeout(() => {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 10_000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}
