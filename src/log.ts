import { redactCredentialEcho } from './redact.js';

/** Logging for every mode: stderr only, because stdout is the MCP protocol in server mode. */

const levels = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof levels)[number];
export type Logger = Record<LogLevel, (message: string) => void>;

export function createLogger(
  sink: { write(text: string): unknown },
  level: LogLevel,
  prefix = 'agent-mailbox',
): Logger {
  const emit = (at: LogLevel, message: string): void => {
    if (levels.indexOf(at) > levels.indexOf(level)) return;
    sink.write(`${prefix} ${at}: ${redactCredentialEcho(message)}\n`);
  };
  return Object.fromEntries(levels.map((at) => [at, (message: string) => emit(at, message)])) as Logger;
}

/** A logger that drops everything: the default for core code under test. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
