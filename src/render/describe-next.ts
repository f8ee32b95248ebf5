import { settings } from '../config.js';
import type { NextStep, SettingRefName } from '../errors.js';
import type { FrontDoor } from './front-door.js';
import { shellQuote } from './shell-quote.js';

export function toKebab(key: string): string {
  return key
    .replace(/_/g, '-')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

export interface InputSpelling {
  flag: string;
  positional: boolean;
  repeatable: boolean;
}

/** An entry's command words (e.g. ['watch', 'status']) and, when asked for one, an input's spelling. */
export type CliSpelling = { path: readonly string[] } & Partial<InputSpelling>;

/** Looks up the CLI spelling of an entry's input ('*': any entry that has it); `key` undefined asks for the command words only. */
export type CliSpellingLookup = (operation: string, key?: string) => CliSpelling | undefined;

/**
 * How a door words next steps: `adjust` fills in the caller's inbox choice (carry-inbox-choice.ts),
 * `cli` spells flags as the table declares them, `command` runs this CLI at the operator's shell.
 */
export interface NextWording {
  adjust?: ((next: NextStep) => NextStep) | undefined;
  cli?: CliSpellingLookup | undefined;
  command?: string | undefined;
}

export function describeNextForCli(next: NextStep, spelling?: CliSpellingLookup, command = 'agent-mailbox'): string {
  const parts = [command, ...(spelling?.(next.operation)?.path ?? [next.operation])];
  const asWord = (value: unknown): string => shellQuote(typeof value === 'string' ? value : JSON.stringify(value));
  for (const [key, value] of Object.entries(next.input ?? {})) {
    if (value === undefined) continue;
    const spelled = spelling?.(next.operation, key);
    const flag = spelled?.flag ?? `--${toKebab(key)}`;
    if (spelled?.positional ?? key === 'topic') parts.push(asWord(value));
    else if (value === true) parts.push(flag);
    else if (spelled?.repeatable && Array.isArray(value))
      parts.push(...value.flatMap((item: unknown) => [flag, asWord(item)]));
    else parts.push(flag, asWord(value));
  }
  return parts.join(' ');
}

export function describeNextForMcp(next: NextStep): string {
  const input = Object.fromEntries(Object.entries(next.input ?? {}).filter(([, value]) => value !== undefined));
  return Object.keys(input).length > 0
    ? `call \`${next.operation}\` with ${JSON.stringify(input)}`
    : `call \`${next.operation}\``;
}

export function describeNext(next: NextStep, door: FrontDoor, wording: NextWording = {}): string {
  const step = wording.adjust ? wording.adjust(next) : next;
  return door === 'cli' ? describeNextForCli(step, wording.cli, wording.command) : describeNextForMcp(step);
}

/** Replaces each inputRef(key) and settingRef(name) in `text` with the door's spelling of it. */
export function wordInputs(text: string, door: FrontDoor, spelling?: CliSpellingLookup): string {
  if (!text.includes('⟦') && !text.includes('⟪')) return text;
  return text
    .replace(/⟦([a-z_]+)⟧/g, (_whole, key: string) =>
      door === 'mcp' ? key : (spelling?.('*', key)?.flag ?? `--${toKebab(key)}`),
    )
    .replace(/⟪([A-Za-z]+)⟫/g, (whole, name: string) => {
      if (!Object.hasOwn(settings, name)) return whole;
      const declared: { flag: string; env: string } = settings[name as SettingRefName];
      // Over MCP no flag can be passed: the agent is told the server's variable the operator sets.
      return door === 'cli'
        ? `${declared.flag} / ${declared.env}`
        : `the MCP server's ${declared.env} (set in the host's config by your operator)`;
    });
}
