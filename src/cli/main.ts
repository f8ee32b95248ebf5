import { fileURLToPath } from 'node:url';
import { interruptSignal } from './interrupt-signal.js';
import { Command, CommanderError } from 'commander';
import type { z } from 'zod';
import { createAccountRegistry } from '../auth/create-account-registry.js';
import { resolveConfig, type ConfigInputs } from '../config.js';
import { MailboxError, toMailboxError } from '../errors.js';
import { createLogger } from '../log.js';
import { operations } from '../operations/index.js';
import { runSandboxCommand } from '../sandbox/sandbox-command.js';
import { registerWatchCommands } from './watch-commands.js';
import { buildTableCommand, type ParsedInvocation } from './program.js';
import { createProgressLine } from './progress-bar.js';
import { exitCodes, renderError, renderSuccess, type CliStreams } from './render.js';
import { renderJmapResultForCli } from './render-jmap-result.js';

export interface CliEntry {
  env: Readonly<Record<string, string | undefined>>;
  argv: string[];
  streams?: CliStreams;
}

const cliPath = fileURLToPath(new URL('../bin.js', import.meta.url));


async function runOperation(invocation: ParsedInvocation, entry: CliEntry, streams: CliStreams): Promise<number> {
  const { operation } = invocation;
  const parsed = operation.input.safeParse(invocation.input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
    return renderError(streams, new MailboxError({ code: 'usage', message: problems, hint: `See: agent-mailbox ${operation.name} --help` }));
  }
  const configInputs: ConfigInputs = { flags: invocation.configFlags, env: entry.env };
  const config = resolveConfig(configInputs);
  const log = createLogger(process.stderr, config.debug ? 'debug' : 'warn');
  const accounts = createAccountRegistry({ configInputs, log });
  const progressLine = createProgressLine(process.stderr);
  const interrupt = interruptSignal();
  try {
    const result: unknown = await (operation as Operation).run(parsed.data, {
      configInputs,
      signal: interrupt.signal,
      progress: (u) => progressLine.update(u),
      log,
      accounts,
      frontDoor: 'cli',
      cliFlags: invocation.cliFlags,
      install: { nodePath: process.execPath, cliPath },
      workingDir: process.cwd(),
    });
    progressLine.done();
    if (operation.name === 'jmap_request') return renderJmapResultForCli(streams, result, { json: invocation.json });
    renderSuccess(streams, result, invocation.json ? undefined : operation.cli?.textField);
    return exitCodes.ok;
  } catch (error) {
    progressLine.done();
    return renderError(streams, toMailboxError(error));
  } finally {
    interrupt.dispose();
    accounts.close();
  }
}

type Operation = (typeof operations)[number];

/** Builds the program from the table plus the CLI-only commands; returns the exit code. */
export async function runCli(entry: CliEntry): Promise<number> {
  const streams: CliStreams = entry.streams ?? { stdout: process.stdout, stderr: process.stderr };
  let exitCode: number = exitCodes.ok;
  const program = new Command('agent-mailbox')
    .description('Give an AI agent its own e-mail inbox (Agent Mailbox Service, JMAP). Run `agent-mailbox mcp` for the MCP server.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => streams.stdout.write(s), writeErr: (s) => streams.stderr.write(s) });
  for (const op of operations) {
    program.addCommand(
      buildTableCommand(op as Operation & { input: z.ZodObject }, async (invocation) => {
        exitCode = await runOperation(invocation, entry, streams);
      }),
    );
  }
  program
    .command('sandbox')
    .description('Run the local sandbox of the Agent Mailbox Service (auth host, JMAP host, SMTP) on 127.0.0.1.')
    .option('--auth-port <n>', 'Auth host port (0: any free port).', '0')
    .option('--api-port <n>', 'JMAP host port (0: any free port).', '0')
    .option('--smtp-port <n>', 'SMTP port for mail from outside (0: any free port).', '0')
    .option('--difficulty <n>', 'Proof-of-work difficulty in leading zero bits.')
    .option('--domain <domain>', 'Inbox domain of the sandbox.')
    .option('--data-dir <dir>', 'Keep inboxes, mail and keys in this directory across restarts.')
    .option('--backend <kind>', 'Mail store: embedded (default) or cyrus (a private Cyrus IMAP instance).')
    .option('--session-ttl <seconds>', 'Session JWT lifetime (default 3600).')
    .option('--capability-ttl <seconds>', 'Capability JWT lifetime (default 120).')
    .option('--json', 'Print one JSON line with the URLs once ready.')
    .action(async (opts: Record<string, string | boolean | undefined>) => {
      const interrupt = interruptSignal();
      try {
        exitCode = await runSandboxCommand(parseSandboxOptions(opts), { stdout: process.stdout, stderr: process.stderr, signal: interrupt.signal });
      } catch (error) {
        exitCode = renderError(streams, toMailboxError(error));
      } finally {
        interrupt.dispose();
      }
    });
  program.command('mcp').description('Run the stdio MCP server (for agent hosts: npx -y agent-mailbox mcp).');
  registerWatchCommands(program, { env: entry.env, streams, cliPath, nodePath: process.execPath, setExitCode: (code: number) => { exitCode = code; } });
  try {
    await program.parseAsync(entry.argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return exitCodes.ok;
      return exitCodes.usage;
    }
    return renderError(streams, toMailboxError(error));
  }
  return exitCode;
}

function parseSandboxOptions(opts: Record<string, string | boolean | undefined>): Parameters<typeof runSandboxCommand>[0] {
  const num = (name: string): number | undefined => {
    const raw = opts[name];
    if (typeof raw !== 'string') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) {
      throw new MailboxError({ code: 'usage', message: `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a whole number, got "${raw}".`, hint: 'See: agent-mailbox sandbox --help' });
    }
    return n;
  };
  const text = (name: string): string | undefined => (typeof opts[name] === 'string' ? (opts[name] as string) : undefined);
  const backend = text('backend');
  if (backend !== undefined && backend !== 'embedded' && backend !== 'cyrus') {
    throw new MailboxError({ code: 'usage', message: `--backend must be embedded or cyrus, got "${backend}".`, hint: 'See: agent-mailbox sandbox --help' });
  }
  return {
    authPort: num('authPort'),
    apiPort: num('apiPort'),
    smtpPort: num('smtpPort'),
    difficulty: num('difficulty'),
    domain: text('domain'),
    dataDir: text('dataDir'),
    backend: backend as 'embedded' | 'cyrus' | undefined,
    sessionTtl: num('sessionTtl'),
    capabilityTtl: num('capabilityTtl'),
    json: opts.json === true,
  };
}
