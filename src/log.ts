import { redactCredentialEcho } from './redact.js';

/** Logging for every mode: stderr only, because stdout is the MCP protocol in server mode. */

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

const rank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface LogSink {
  write(text: string): unknown;
}

export function createLogger(sink: LogSink, level: LogLevel, prefix = 'agent-mailbox'): Logger {
  const emit = (at: LogLevel, message: string): void => {
    if (rank[at] > rank[level]) return;
    sink.write(`${prefix} ${at}: ${redactCredentialEcho(message)}\n`);
  };
  return {
    error: (m) => emit('error', m),
    warn: (m) => emit('warn', m),
    info: (m) => emit('info', m),
    debug: (m) => emit('debug', m),
  };
}

/** A logger that drops everything: the default for core code under test. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
