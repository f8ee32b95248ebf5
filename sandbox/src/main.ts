import { parseSandboxArgs, sandboxUsage } from './sandbox-args.js';

/**
 * The package's bin, `agent-mailbox-sandbox [--json] [--difficulty N] ...`: the options of
 * `agent-mailbox sandbox`, which starts this bin, built from the one declaration
 * (sandboxCommandInput); `agent-mailbox-sandbox drill seed|score|run ...` runs the mail drill.
 */
async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  if (argv[0] === 'drill') {
    const { runDrillEntry } = await import('./drill-entry.js');
    const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal };
    return runDrillEntry(argv.slice(1), io);
  }
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(sandboxUsage());
    return 0;
  }
  const options = parseSandboxArgs(argv);
  // Loaded only now: `drill` and --help start without the sandbox's modules.
  const { runSandboxCommand } = await import('./sandbox-command.js');
  return runSandboxCommand(options, {
    stdout: process.stdout,
    stderr: process.stderr,
    signal: controller.signal,
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agent-mailbox sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
