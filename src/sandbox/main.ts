import { parseArgs } from 'node:util';
import { runSandboxCommand, type SandboxCommandOptions } from './sandbox-command.js';

/**
 * Direct entry: `node dist/sandbox/main.js [--json] [--difficulty N] ...`, the same options as
 * `agent-mailbox sandbox`. It exists so the sandbox can run without the client's CLI loaded.
 */
async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'auth-port': { type: 'string' },
      'api-port': { type: 'string' },
      'smtp-port': { type: 'string' },
      difficulty: { type: 'string' },
      domain: { type: 'string' },
      'data-dir': { type: 'string' },
      backend: { type: 'string' },
      'session-ttl': { type: 'string' },
      'capability-ttl': { type: 'string' },
      'allow-host': { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const whole = (name: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    if (!/^[0-9]+$/.test(text)) throw new Error(`--${name} takes a whole number, not "${text}"`);
    return Number(text);
  };
  const backend = values.backend;
  if (backend !== undefined && backend !== 'embedded' && backend !== 'cyrus') throw new Error(`--backend is embedded or cyrus, not "${backend}"`);
  const opts: SandboxCommandOptions = {
    authPort: whole('auth-port', values['auth-port']),
    apiPort: whole('api-port', values['api-port']),
    smtpPort: whole('smtp-port', values['smtp-port']),
    difficulty: whole('difficulty', values.difficulty),
    sessionTtl: whole('session-ttl', values['session-ttl']),
    capabilityTtl: whole('capability-ttl', values['capability-ttl']),
    domain: values.domain,
    dataDir: values['data-dir'],
    allowHost: values['allow-host'],
    backend,
    json: values.json ?? false,
  };
  for (const key of Object.keys(opts) as Array<keyof SandboxCommandOptions>) if (opts[key] === undefined) delete opts[key];
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  return runSandboxCommand(opts, { stdout: process.stdout, stderr: process.stderr, signal: controller.signal });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agent-mailbox sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
