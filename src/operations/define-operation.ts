import type { Writable } from 'node:stream';
import * as z from 'zod';
import { resolveConfig, type Config, type ConfigInputs } from '../config.js';
import type { Deadline } from '../gate/deadline.js';
import { MailboxError, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { AccountRegistry } from '../auth/account-registry.js';
import type { FrontDoor } from '../render/front-door.js';
import type { Present } from '../render/present-result.js';
import type { OperatorTerminal } from '../policy/operator-terminal.js';

/** One entry of THE table, from which both the MCP tool and the CLI subcommand are generated. */

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message: string;
}

/** One field of a confirmation form: flat, so every door can show it (a form, a prompt, a flag). */
export type ConfirmField = { title: string; description?: string; required?: boolean } & (
  | { type: 'boolean'; default?: boolean }
  | { type: 'string'; minLength?: number; maxLength?: number }
  | { type: 'number'; minimum?: number; maximum?: number }
  | { type: 'choice'; options: readonly [string, ...string[]] }
);

/** A question for the person behind the agent (never the model): what to confirm and a few fields. */
export interface ConfirmRequest {
  /** One or two sentences: what happens on yes. */
  message: string;
  /** Keys are snake_case; none at all asks a plain yes or no (accept or decline). */
  fields: Readonly<Record<string, ConfirmField>>;
}

/** Only `accept` (its content checked against the fields) is a yes; `unavailable`: nobody can be asked. */
export type ConfirmAnswer =
  | { action: 'accept'; content: Readonly<Record<string, string | number | boolean>> }
  | { action: 'decline' | 'cancel' | 'unavailable' };

/** A more telling code than invalid_input for a field that fails its schema; kept out of the published JSON Schema. */
export const inputErrorCodes = z.registry<{ code: ErrorCode }>();

/** Schemas published as bare type and description (tools/list is in every conversation); validation uses the whole. */
export const publishedAsType = z.registry<Record<string, never>>();

export interface OperationContext {
  /** Flags and environment as given at the entry; resolved per credentials directory. */
  configInputs: ConfigInputs;
  signal: AbortSignal;
  progress: (update: ProgressUpdate) => void;
  log: Logger;
  /** One cached account per credentials directory (long-lived in the MCP server). */
  accounts: AccountRegistry;
  /** Wording of hints may differ per door, behaviour does not. */
  frontDoor: FrontDoor;
  /** Started by the door: --timeout-ms over everything the call sends, within the door's budget (MCP: ~60 s). */
  deadline: Deadline;
  /** Absolute paths for jobs that run with no PATH (watch), and how the operator runs this CLI at a shell. */
  install: { nodePath: string; cliPath: string; shellCommand: string };
  /** Where downloads may be written: the directory the operator started the process in. */
  workingDir: string;
  /** Only for CLI-only commands that run until stopped and report as they go (sandbox, watch run, wake). */
  streams?: { stdout: Writable; stderr: Writable };
  /**
   * Asks the person behind the agent (MCP: form elicitation; the CLI: unavailable). A 2026-07-28 client
   * answers by retrying the call, so everything before a confirm must be free of side effects.
   */
  confirm: (ask: ConfirmRequest) => Promise<ConfirmAnswer>;
  /** For commands that widen what the agent may do: a person types yes. Absent under MCP and in tests. */
  terminal?: OperatorTerminal;
  /** Supplied by the CLI: core never imports a door. */
  launchMcpServer?: (options: {
    verbose: boolean;
    toolDeadlineMs?: number;
    configFlags?: ConfigInputs['flags'];
  }) => Promise<void>;
}

export interface OperationAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export { optionalSwitch, optionalText } from '../optional-inputs.js';

/** The annotations of a command that reads, or rewrites, only local files. */
export const readsLocal = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const writesLocal = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** CLI-only details that cannot be derived from the input schema. */
export interface CliSpec {
  /** Command words when they differ from the name, e.g. watch_status → `watch status`. */
  path?: readonly string[];
  /** Input keys offered as flags but left out of --help (testing aids). */
  hidden?: readonly string[];
  /** The command reports through ctx.streams as it runs; the CLI prints no result, only failures. */
  selfReporting?: boolean;
  /** false: no client config flags (--auth-url …); the command does not talk to the service. */
  configOptions?: boolean;
  /** Log level on stderr without --verbose; a cron job's log is the only record, so wake uses info. */
  logLevel?: 'warn' | 'info';
  /** Input key taken as a positional argument, e.g. `help [topic]`. */
  positional?: string;
  /** Input keys given as JSON text, each with the example a parse error shows. */
  jsonFlags?: Readonly<Record<string, string>>;
  /** Input keys whose flag may repeat, collected into an array. */
  repeatable?: readonly string[];
  /** Flag names that differ from the kebab-case key, e.g. attachments → `--attachment`. */
  flagNames?: Readonly<Record<string, string>>;
  /** Result fields shown unredacted because the operator asked for them (`--show-api-key`). */
  reveal?: readonly string[];
}

/** What `run` receives: the input of both doors, plus the operator-only inputs when the CLI called. */
export type OperationInput<I extends z.ZodObject, C extends z.ZodObject> = z.infer<I> & Partial<z.infer<C>>;

export interface Operation<I extends z.ZodObject, O extends z.ZodType, C extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  /** Operator-only inputs, offered only as CLI flags: the MCP door validates with `input` alone. */
  cliInput?: C;
  output: O;
  annotations: OperationAnnotations;
  cli?: CliSpec;
  /** Default both: operator-only commands are CLI-only. */
  doors?: readonly FrontDoor[];
  /** The text a person or model reads, from `run`'s result as typed; without it both doors show compact JSON (src/render/). */
  present?: Present<z.infer<O>>;
  run(input: OperationInput<I, C>, ctx: OperationContext): Promise<z.infer<O>>;
}

export type AnyOperation = Operation<z.ZodObject, z.ZodType>;

/** Identity helper that keeps each operation's input and output types linked to `run`. */
export function defineOperation<I extends z.ZodObject, O extends z.ZodType, C extends z.ZodObject = z.ZodObject>(
  op: Operation<I, O, C>,
): Operation<I, O, C> {
  return op;
}

type Schemas = 'input' | 'output' | 'cliInput';

/** An entry whose schemas are built on first use, once: every start imports the table, a command reads one entry. */
export function defineLazyOperation<I extends z.ZodObject, O extends z.ZodType, C extends z.ZodObject = z.ZodObject>(
  op: Omit<Operation<I, O, C>, Schemas> & { schemas: () => Pick<Operation<I, O, C>, Schemas> },
): Operation<I, O, C> {
  const { schemas, ...entry } = op;
  let built: Pick<Operation<I, O, C>, Schemas> | undefined;
  const get = () => (built ??= schemas());
  return Object.defineProperties(entry, {
    input: { get: () => get().input, enumerable: true },
    output: { get: () => get().output, enumerable: true },
    cliInput: { get: () => get().cliInput, enumerable: true },
  }) as Operation<I, O, C>;
}

export function streamsOf(ctx: OperationContext, what: string): NonNullable<OperationContext['streams']> {
  if (ctx.streams) return ctx.streams;
  throw new MailboxError({
    code: 'internal',
    message: `${what} needs the process streams.`,
    hint: 'Run it from the CLI.',
  });
}

/** The config with this command's directory and wake command as flags (flag > env > default). */
export function commandConfig(
  ctx: OperationContext,
  input: { credentials_dir?: string | undefined; wake_command?: string | undefined },
): Config {
  return resolveConfig({
    ...ctx.configInputs,
    flags: {
      ...ctx.configInputs.flags,
      ...(input.credentials_dir !== undefined ? { credentialsDir: input.credentials_dir } : {}),
      ...(input.wake_command !== undefined ? { wakeCommand: input.wake_command } : {}),
    },
  });
}

export function gateContext(ctx: OperationContext) {
  return { signal: ctx.signal, log: ctx.log, deadline: ctx.deadline, frontDoor: ctx.frontDoor };
}
