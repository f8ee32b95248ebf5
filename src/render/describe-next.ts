import type { NextStep } from '../errors.js';
import type { FrontDoor } from './front-door.js';
import { shellQuote } from './shell-quote.js';

/** snake_case or camelCase key → kebab-case flag name. */
export function toKebab(key: string): string {
  return key.replace(/_/g, '-').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** Words a table step as a shell command line. */
export function describeNextForCli(next: NextStep): string {
  const parts = ['agent-mailbox', next.operation];
  for (const [key, value] of Object.entries(next.input ?? {})) {
    if (value === undefined) continue;
    if (key === 'topic') parts.push(String(value));
    else parts.push(`--${toKebab(key)}`, shellQuote(typeof value === 'string' ? value : JSON.stringify(value)));
  }
  return parts.join(' ');
}

/** Words a table step the MCP way: "call `register` with {…}". */
export function describeNextForMcp(next: NextStep): string {
  const input = Object.fromEntries(Object.entries(next.input ?? {}).filter(([, value]) => value !== undefined));
  return Object.keys(input).length > 0 ? `call \`${next.operation}\` with ${JSON.stringify(input)}` : `call \`${next.operation}\``;
}

export function describeNext(next: NextStep, door: FrontDoor): string {
  return door === 'cli' ? describeNextForCli(next) : describeNextForMcp(next);
}
