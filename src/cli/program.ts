import { Command, Option } from 'commander';
import type * as z from 'zod';
import { isSwitchSetting, settings, type SettingName } from '../config.js';
import { MailboxError } from '../errors.js';
import type { AnyOperation } from '../operations/define-operation.js';
import { spellingOfInput } from '../operations/cli-spelling.js';
import { shellQuote } from '../render/shell-quote.js';
import { toKebab } from '../render/describe-next.js';

/** Settings that every table command accepts as flags; the others are operation inputs. */
const globalSettingNames: readonly SettingName[] = [
  'sandbox',
  'authUrl',
  'apiUrl',
  'scryptSalt',
  'inboxDomain',
  'timeoutMs',
  'downloadDir',
  'powWorkers',
  'crontab',
  'allowDefaultCredentialsDir',
  'debug',
];

export interface ParsedInvocation {
  operation: AnyOperation;
  input: Record<string, unknown>;
  configFlags: Partial<Record<SettingName, string | boolean>>;
  json: boolean;
}

const fieldKinds = ['string', 'boolean', 'number', 'array', 'record', 'enum'] as const;

/** What building a flag needs to know of an input field, optional and default wrappers unwrapped. */
function describeField(field: z.ZodType) {
  let inner: z.ZodType = field;
  // zod 4 keeps wrappers in def.innerType; optional and default are the only ones the table uses.
  while (inner.def.type === 'optional' || inner.def.type === 'default')
    inner = (inner.def as unknown as { innerType: z.ZodType }).innerType;
  const type = inner.def.type;
  const kind = fieldKinds.find((known) => known === type) ?? 'other';
  return {
    kind,
    required: !field.safeParse(undefined).success,
    describe: field.description ?? inner.description ?? '',
    choices: kind === 'enum' ? (inner as unknown as { options: readonly string[] }).options : undefined,
  };
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

function parseJsonFlag(flag: string, text: string, example: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MailboxError({
      code: 'usage',
      message: `${flag} is not valid JSON: ${(error as Error).message}`,
      hint: `Quote the JSON for your shell, e.g. ${flag} ${shellQuote(example)}.`,
      cause: error,
    });
  }
}

/** A flag's text as the number it spells, as MCP's JSON gives it; anything else stays text for the schema to refuse. */
function numberFlag(value: string): number | string {
  return /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
}

export function buildTableCommand(op: AnyOperation, onRun: (invocation: ParsedInvocation) => Promise<void>): Command {
  const command = new Command(op.cli?.path?.at(-1) ?? op.name).description(op.description);
  const flagKeys = new Map<string, { key: string; flag: string }>();
  // Operator-only inputs become flags like any other; only this door offers them.
  const shape = { ...op.input.shape, ...(op.cliInput?.shape ?? {}) };
  for (const [key, field] of Object.entries(shape)) {
    const fieldShape = describeField(field as z.ZodType);
    const { flag, positional, repeatable } = spellingOfInput(op, key);
    if (positional) {
      const variadic = fieldShape.kind === 'array' ? '...' : '';
      command.argument(fieldShape.required ? `<${key}${variadic}>` : `[${key}${variadic}]`, fieldShape.describe);
      continue;
    }
    const spec =
      fieldShape.kind === 'boolean' ? flag : `${flag} <${fieldShape.kind === 'array' ? 'value' : toKebab(key)}>`;
    // Choices are listed, not enforced by commander: the input schema refuses a wrong one like any bad input.
    const choices = fieldShape.choices ? ` (choices: ${fieldShape.choices.map((c) => `"${c}"`).join(', ')})` : '';
    const option = new Option(spec, fieldShape.describe + (repeatable ? ' (repeatable)' : '') + choices);
    if (op.cli?.hidden?.includes(key)) option.hideHelp();
    if (repeatable) option.argParser(collect);
    else if (fieldShape.kind === 'number') option.argParser(numberFlag);
    command.addOption(option);
    flagKeys.set(option.attributeName(), { key, flag });
  }
  const configKeys = new Map<string, SettingName>();
  for (const name of op.cli?.configOptions === false ? [] : globalSettingNames) {
    const decl = settings[name];
    const spec = isSwitchSetting(name) ? decl.flag : `${decl.flag} <value>`;
    const option = new Option(spec, `${decl.describe} [env ${decl.env}]`);
    command.addOption(option);
    configKeys.set(option.attributeName(), name);
  }
  if (!('json' in shape)) command.option('--json', 'Print JSON even where the command prints text by default.');
  command.action(async (...args: unknown[]) => {
    const opts = command.opts<Record<string, unknown>>();
    const input: Record<string, unknown> = {};
    if (op.cli?.positional && (typeof args[0] === 'string' || Array.isArray(args[0])))
      input[op.cli.positional] = args[0];
    for (const [attribute, { key, flag }] of flagKeys) {
      const value = opts[attribute];
      if (value === undefined) continue;
      const example = op.cli?.jsonFlags?.[key];
      input[key] = example !== undefined && typeof value === 'string' ? parseJsonFlag(flag, value, example) : value;
    }
    const configFlags: ParsedInvocation['configFlags'] = {};
    for (const [attribute, name] of configKeys) {
      const value = opts[attribute];
      if (typeof value === 'string' || typeof value === 'boolean') configFlags[name] = value;
    }
    await onRun({ operation: op, input, configFlags, json: opts.json === true });
  });
  return command;
}
