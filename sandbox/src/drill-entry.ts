import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';

/** The drill's flags, as `agent-mailbox drill …` passes them on (its help describes each). */
const drillFlags = {
  sandbox: 'string',
  'credentials-dir': 'string',
  classes: 'string',
  seed: 'string',
  json: 'boolean',
  html: 'string',
  drill: 'string',
  agent: 'string',
  'agent-command': 'string',
  policy: 'string',
  'agent-timeout': 'string',
  /** The client's CLI entry the drill runs agents and policies with; default: agent-mailbox on PATH. */
  'client-cli': 'string',
} as const;

const numberFlags = new Set(['seed', 'agent_timeout']);

export interface DrillEntryIo {
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
}

function onPath(name: string, env: DrillEntryIo['env']): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/** `agent-mailbox-sandbox drill seed|score|run [flags]`: the drill's input from its flags, then the drill. */
export async function runDrillEntry(argv: string[], io: DrillEntryIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'seed' && command !== 'score' && command !== 'run') {
    io.stderr.write(
      'agent-mailbox-sandbox drill: name seed, score or run.\nSee: agent-mailbox drill --help (docs/drill.md).\n',
    );
    return 2;
  }
  const options = Object.fromEntries(Object.entries(drillFlags).map(([flag, type]) => [flag, { type }]));
  const { values } = parseArgs({ args: rest, options, strict: true });
  const input: Record<string, unknown> = {};
  for (const [flag, value] of Object.entries(values)) {
    const key = flag.replace(/-/g, '_');
    if (!numberFlags.has(key)) input[key] = value;
    else if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) input[key] = Number(value);
    else {
      io.stderr.write(`agent-mailbox-sandbox drill: --${flag} takes a number.\n`);
      return 2;
    }
  }
  const cliPath =
    (typeof values['client-cli'] === 'string' ? values['client-cli'] : undefined) ?? onPath('agent-mailbox', io.env);
  if (cliPath === undefined && command === 'run') {
    io.stderr.write(
      "agent-mailbox-sandbox drill run: the drill runs the client's CLI and found none.\nPass --client-cli PATH (agent-mailbox's bin/agent-mailbox.js), put agent-mailbox on PATH, or run agent-mailbox drill run.\n",
    );
    return 2;
  }
  const { runDrillCommand } = await import('./drill/drill-command.js');
  return runDrillCommand(command, input, { ...io, cliPath: cliPath ?? '', nodePath: process.execPath });
}
