// Every command runs a handler: loaded with the CLI, not split off into more files to open (docs/benchmarks.md).
import '../operations/handlers/index.js';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { createAccountRegistry } from '../auth/create-account-registry.js';
import { resolveConfig, type ConfigInputs } from '../config.js';
import { MailboxError, toMailboxError } from '../errors.js';
import { Deadline } from '../gate/deadline.js';
import { createLogger } from '../log.js';
import { inboxChoiceCarrier } from '../render/carry-inbox-choice.js';
import { cliSpellingOf } from '../operations/cli-spelling.js';
import { cliPathOf, operationsFor, type AnyOperation } from '../operations/index.js';
import { packageVersion } from '../package-root.js';
import { redactSecrets } from '../redact.js';
import type { NextWording } from '../render/describe-next.js';
import { renderResult, type RenderedResult } from '../render/present-result.js';
import { exitCodes, renderError } from '../render/render-error.js';
import { shellCommandFor } from '../render/shell-command.js';
import { buildTableCommand, type ParsedInvocation } from './program.js';
import { createProgressLine } from './progress-bar.js';

export interface CliEntry {
  env: Readonly<Record<string, string | undefined>>;
  argv: string[];
  streams?: CliStreams;
  /** The entry file that started this process (watch jobs run it again); default: the tsc build's. */
  cliPath?: string;
  /** Called once a command that does not own the process has printed its result (node lingers ~100 ms on fetch's keep-alive). */
  done?: (exitCode: number) => void;
  /** Where downloads may be written; default: the process's working directory. */
  cwd?: string;
}

/** The CLI's only writers: JSON on stdout, lead lines and error text on stderr. */
export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** A presentation's own text on stdout, else lead lines on stderr over JSON (compact with --json). */
function printSuccess(streams: CliStreams, rendered: RenderedResult, json: boolean): number {
  if (rendered.isPresented && !json)
    streams.stdout.write(rendered.text.endsWith('\n') ? rendered.text : `${rendered.text}\n`);
  else {
    for (const line of rendered.lead) streams.stderr.write(`${line}\n`);
    streams.stdout.write(`${JSON.stringify(rendered.structured, null, json ? undefined : 2)}\n`);
  }
  return rendered.isError ? exitCodes.failure : exitCodes.ok;
}

/**
 * The fields as JSON on stdout, the message and next step on stderr; a command that owns stdout (the
 * MCP protocol, the sandbox banner) reports on stderr only, naming itself. Returns the exit code.
 */
function printError(streams: CliStreams, error: MailboxError, wording?: NextWording, owner?: string): number {
  const rendered = renderError(error, 'cli', wording);
  if (owner !== undefined) streams.stderr.write(`agent-mailbox ${owner}: ${rendered.text}\n`);
  else {
    streams.stdout.write(`${JSON.stringify(rendered.structured, null, 2)}\n`);
    streams.stderr.write(`${rendered.text}\n`);
  }
  return rendered.exitCode;
}

const defaultCliPath = fileURLToPath(new URL('../bin.js', import.meta.url));

/** How this process runs the CLI: for watch jobs (no PATH) and the command lines we suggest. */
function installOf(entry: CliEntry) {
  const cliPath = entry.cliPath ?? defaultCliPath;
  const workingDir = entry.cwd ?? process.cwd();
  return { cliPath, workingDir, shellCommand: shellCommandFor({ cliPath, env: entry.env, cwd: workingDir }) };
}

/** Aborts on Ctrl-C / SIGTERM so in-flight work stops cleanly and no file is left half-written. */
function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (): void =>
    controller.abort(
      new MailboxError({ code: 'cancelled', message: 'Interrupted.', hint: 'Run the command again when ready.' }),
    );
  const signals = ['SIGINT', 'SIGTERM'] as const;
  for (const name of signals) process.once(name, onSignal);
  return { signal: controller.signal, dispose: () => signals.forEach((name) => process.off(name, onSignal)) };
}

async function runOperation(invocation: ParsedInvocation, entry: CliEntry, streams: CliStreams): Promise<number> {
  const { operation } = invocation;
  const selfReporting = operation.cli?.selfReporting === true;
  const fail = (error: MailboxError): number =>
    printError(streams, error, wording, selfReporting ? cliPathOf(operation).join(' ') : undefined);
  const table = operationsFor('cli');
  const { cliPath, workingDir, shellCommand } = installOf(entry);
  const wording: NextWording = {
    adjust: inboxChoiceCarrier(table)(invocation.input['credentials_dir'], invocation.input['inbox']),
    cli: cliSpellingOf(table),
    command: shellCommand,
  };
  const schema = operation.cliInput ? operation.input.extend(operation.cliInput.shape) : operation.input;
  const parsed = schema.safeParse(invocation.input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
    const hint = `See: ${shellCommand} ${cliPathOf(operation).join(' ')} --help`;
    return fail(new MailboxError({ code: 'usage', message: problems, hint }));
  }
  const configInputs: ConfigInputs = { flags: invocation.configFlags, env: entry.env };
  let accounts: ReturnType<typeof createAccountRegistry> | undefined;
  // Log and progress go to the entry's streams (a test's, the page renderer's); commands that own the process get its own.
  const progressLine = createProgressLine(streams.stderr);
  const interrupt = interruptSignal();
  try {
    const config = resolveConfig(configInputs);
    const log = createLogger(streams.stderr, config.debug ? 'debug' : (operation.cli?.logLevel ?? 'warn'));
    accounts = createAccountRegistry({ configInputs, log });
    const result: unknown = await operation.run(parsed.data, {
      configInputs,
      signal: interrupt.signal,
      // Progress leaves the process like results do: through the one redactor.
      progress: (u) => progressLine.update({ ...u, message: redactSecrets(u.message) }),
      log,
      accounts,
      frontDoor: 'cli',
      deadline: Deadline.start({ timeoutMs: config.timeoutMs }),
      install: { nodePath: process.execPath, cliPath, shellCommand },
      workingDir,
      streams: { stdout: process.stdout, stderr: process.stderr },
      // A shell agent runs these commands too: mail that needs a person's yes is held, never asked here.
      confirm: async () => ({ action: 'unavailable' }),
      // Only a real process's streams can be the operator's terminal; stdin is opened only when asked (a getter).
      ...(entry.streams
        ? {}
        : {
            terminal: {
              get input() {
                return process.stdin;
              },
              output: process.stderr,
            },
          }),
      launchMcpServer: async (options) => {
        const { runMcpServer } = await import('../mcp/main.js');
        await runMcpServer({ env: entry.env, cliPath, ...options });
      },
    });
    progressLine.done();
    if (selfReporting) {
      const code = (result as { exitCode?: unknown } | undefined)?.exitCode;
      return typeof code === 'number' ? code : exitCodes.ok;
    }
    const rendered = await renderResult(result, 'cli', {
      present: operation.present,
      reveal: operation.cli?.reveal,
      wording,
    });
    return printSuccess(streams, rendered, invocation.json);
  } catch (error) {
    progressLine.done();
    return fail(toMailboxError(error));
  } finally {
    interrupt.dispose();
    accounts?.close();
  }
}

export async function runCli(entry: CliEntry): Promise<number> {
  const streams: CliStreams = entry.streams ?? { stdout: process.stdout, stderr: process.stderr };
  let exitCode: number = exitCodes.ok;
  let ownsProcess = false;
  const program = new Command('agent-mailbox')
    .description(
      'Give an AI agent its own e-mail inbox (Agent Mailbox Service, JMAP). Run `agent-mailbox mcp` for the MCP server.',
    )
    .version(await packageVersion(), '-V, --version', 'Print the version of agent-mailbox.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => streams.stdout.write(s), writeErr: (s) => streams.stderr.write(s) });
  const groupDescriptions: Record<string, string> = {
    watch:
      'Manage the daily 09:00 job that wakes an agent when new mail arrived (watch=scheduled). See `agent-mailbox help watch`.',
    policy:
      "The operator's rules: who the agent may write to and hear from, caps, the secret scan. See `agent-mailbox help security`.",
    outbox: "Mail held for the operator's yes (list, approve, discard) and the audit log of every send.",
  };
  // Only the commands the first word names are built (each costs a start); else all, for commander's errors.
  const all = operationsFor('cli');
  const named = all.filter((op) => cliPathOf(op)[0] === entry.argv[0]);
  for (const op of named.length > 0 ? named : all) {
    const path = cliPathOf(op);
    let parent = program;
    for (const word of path.slice(0, -1))
      parent =
        parent.commands.find((group) => group.name() === word) ??
        parent.command(word).description(groupDescriptions[word] ?? word);
    const command = buildTableCommand(op, async (invocation) => {
      ownsProcess = op.cli?.selfReporting === true;
      exitCode = await runOperation(invocation, entry, streams);
    });
    // addCommand does not inherit like .command() does: without this a bad flag would exit 1 from commander.
    command.copyInheritedSettings(parent);
    parent.addCommand(command);
  }
  try {
    await program.parseAsync(entry.argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) return exitCodes.ok;
      // Commander said what was wrong (with a "did you mean" where one is close); say where the right spelling is.
      streams.stderr.write(`next: ${usageHelpCommand(entry, all)}\n`);
      return exitCodes.usage;
    }
    return printError(streams, toMailboxError(error));
  }
  if (!ownsProcess) entry.done?.(exitCode);
  return exitCode;
}

/** The --help of the command the argv names (the longest table path it starts with), else the overview. */
function usageHelpCommand(entry: CliEntry, ops: readonly AnyOperation[]): string {
  const command = installOf(entry).shellCommand;
  const paths = ops.map((op) => cliPathOf(op)).filter((path) => path.every((word, i) => entry.argv[i] === word));
  const longest = paths.sort((a, b) => b.length - a.length)[0];
  return longest
    ? `${command} ${longest.join(' ')} --help lists its options.`
    : `${command} --help lists the commands; ${command} help explains them.`;
}
