import { Command, Option } from 'commander';
import { interruptSignal } from './interrupt-signal.js';
import { createAccountRegistry } from '../auth/create-account-registry.js';
import { resolveConfig, type ConfigInputs } from '../config.js';
import { MailboxError, toMailboxError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { installWatch, removeWatch, runWatchDaemon, wake, watchMarker, watchStatus, type WatchTarget } from '../watch/index.js';
import { addConfigOptions, readConfigFlags } from './program.js';
import { exitCodes, printJson, renderError, type CliStreams } from './render.js';

/** What the CLI program hands to the watch commands. */
export interface WatchCommandDeps {
  env: Readonly<Record<string, string | undefined>>;
  streams: CliStreams;
  /** Absolute path of dist/bin.js, baked into the crontab line. */
  cliPath: string;
  /** Absolute node binary (process.execPath). */
  nodePath: string;
  setExitCode: (code: number) => void;
}

type Options = Record<string, unknown>;

const dirFlag = '--credentials-dir <dir>';
const dirHelp = 'Credentials directory of the inbox (default: AGENT_MAILBOX_CREDENTIALS_DIR, then the per-user config dir).';
const wakeHelp =
  'Agent command to run when new mail arrived, e.g. \'claude -p {prompt} --allowedTools "mcp__agent-mailbox__jmap_request,mcp__agent-mailbox__help"\'. {prompt}, {digest} and {credentials_dir} are replaced shell-quoted; the prompt is also in env AGENT_MAILBOX_WAKE_PROMPT. [env AGENT_MAILBOX_WAKE_COMMAND]';

/** Adds `watch status|install|remove|run` and `wake` to the program. */
export function registerWatchCommands(program: Command, deps: WatchCommandDeps): void {
  const watch = program
    .command('watch')
    .description('Manage the daily 09:00 job that wakes an agent when new mail arrived (watch=scheduled). See `agent-mailbox help watch`.');

  const act = (command: Command, body: (opts: Options) => Promise<number>): void => {
    command.action(async () => {
      try {
        deps.setExitCode(await body(command.opts<Options>()));
      } catch (error) {
        deps.setExitCode(renderError(deps.streams, toMailboxError(error)));
      }
    });
  };
  const target = (opts: Options): WatchTarget => ({
    credentialsDir: credentialsDirOf(opts, deps.env),
    env: deps.env,
    nodePath: deps.nodePath,
    cliPath: deps.cliPath,
    crontabBin: resolveConfig({ env: deps.env }).crontab,
  });
  const wakeCommandOf = (opts: Options): { wakeCommand?: string } => {
    const resolved = resolveConfig({ flags: { wakeCommand: typeof opts.wakeCommand === 'string' ? opts.wakeCommand : undefined }, env: deps.env }).wakeCommand;
    return resolved ? { wakeCommand: resolved } : {};
  };
  const print = (result: unknown): number => printJson(deps.streams, result);

  act(watch.command('status').description('Show whether the daily job is installed, when it runs next, and how to verify and remove it.').option(dirFlag, dirHelp), async (opts) =>
    print(await watchStatus(target(opts))),
  );

  act(
    watch
      .command('install')
      .description('Install (or refresh) the daily 09:00 crontab job for this inbox. Installing twice changes nothing.')
      .option(dirFlag, dirHelp)
      .option('--wake-command <cmd>', wakeHelp),
    async (opts) => print(await installWatch({ ...target(opts), ...wakeCommandOf(opts) })),
  );

  act(watch.command('remove').description('Remove exactly this inbox\'s daily job; other crontab lines stay untouched.').option(dirFlag, dirHelp), async (opts) =>
    print(await removeWatch(target(opts))),
  );

  const run = watch
    .command('run')
    .description('Where there is no crontab: stay in the foreground and run the wake every day at 09:00 while running. Stop with Ctrl-C or SIGTERM.')
    .option(dirFlag, dirHelp)
    .option('--wake-command <cmd>', wakeHelp)
    // Tests use a near-future expression; production stays `0 9 * * *`.
    .addOption(new Option('--schedule <cron>', 'Cron expression (testing only).').hideHelp());
  addConfigOptions(run);
  act(run, async (opts) => {
    const { configInputs, log, dir } = setup(opts, deps);
    const accounts = createAccountRegistry({ configInputs, log });
    const stop = interruptSignal();
    try {
      const outcome = await runWatchDaemon({
        name: watchMarker(dir),
        signal: stop.signal,
        log,
        ...stringOpt(opts, 'schedule', 'schedule'),
        onReady: (next) => deps.streams.stderr.write(`agent-mailbox watch: running for ${dir}; next wake ${next ? next.toString() : 'unknown'}. Stop with Ctrl-C.\n`),
        fire: async () => {
          const result = await wake({ credentialsDir: dir, account: accounts.open(dir), env: deps.env, log, signal: stop.signal, agentOutput: deps.streams.stderr, ...wakeCommandOf(opts) });
          // One JSON line per wake, so a supervisor (or a test) can follow along.
          deps.streams.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...result })}\n`);
        },
      });
      deps.streams.stderr.write(`agent-mailbox watch: stopped after ${outcome.fired} wake(s).\n`);
      return exitCodes.ok;
    } finally {
      stop.dispose();
      accounts.close();
    }
  });

  const wakeCommand = program
    .command('wake')
    .description('Check for new mail since the last successful wake, write the digest, and start the configured agent only if there is new mail (run by the daily job).')
    .option(dirFlag, dirHelp)
    .option('--wake-command <cmd>', wakeHelp);
  addConfigOptions(wakeCommand);
  act(wakeCommand, async (opts) => {
    const { configInputs, log, dir } = setup(opts, deps);
    const accounts = createAccountRegistry({ configInputs, log });
    const stop = interruptSignal();
    try {
      const result = await wake({ credentialsDir: dir, account: accounts.open(dir), env: deps.env, log, signal: stop.signal, agentOutput: deps.streams.stderr, ...wakeCommandOf(opts) });
      printJson(deps.streams, { at: new Date().toISOString(), ...result });
      return result.stateAdvanced || result.mode === 'skipped' ? exitCodes.ok : exitCodes.failure;
    } finally {
      stop.dispose();
      accounts.close();
    }
  });
}

function setup(opts: Options, deps: WatchCommandDeps): { configInputs: ConfigInputs; log: Logger; dir: string } {
  const dir = credentialsDirOf(opts, deps.env);
  const configInputs: ConfigInputs = { flags: { ...readConfigFlags(opts), credentialsDir: dir }, env: deps.env };
  const config = resolveConfig(configInputs);
  // info by default: under cron these lines are the only record in wake.log.
  const log = createLogger(deps.streams.stderr, config.debug ? 'debug' : 'info');
  return { configInputs, log, dir };
}

function credentialsDirOf(opts: Options, env: Readonly<Record<string, string | undefined>>): string {
  const flag = typeof opts.credentialsDir === 'string' ? opts.credentialsDir : undefined;
  try {
    return resolveConfig({ flags: { credentialsDir: flag }, env }).credentialsDir;
  } catch (error) {
    throw new MailboxError({ code: 'usage', message: (error as Error).message, hint: 'See: agent-mailbox watch --help', cause: error });
  }
}

function stringOpt<K extends string>(opts: Options, from: string, to: K): Partial<Record<K, string>> {
  const value = opts[from];
  return typeof value === 'string' && value !== '' ? ({ [to]: value } as Partial<Record<K, string>>) : {};
}

