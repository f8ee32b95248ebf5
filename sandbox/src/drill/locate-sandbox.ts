import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SandboxError } from '../auth/sandbox-error.js';

/** The sandbox a drill runs against, as its client settings name it. */
export interface DrillTarget {
  apiUrl: string;
  /** The client settings the sandbox prints (client.env), for the CLI the drill spawns. */
  clientEnv: Record<string, string>;
  /** The inbox's credentials directory: --credentials-dir, else the sandbox's own. */
  credentialsDir: string | undefined;
  /** The sandbox's data directory, when named. */
  dataDir: string | undefined;
}

const clientSettingNames = [
  'AGENT_MAILBOX_AUTH_URL',
  'AGENT_MAILBOX_API_URL',
  'AGENT_MAILBOX_SCRYPT_SALT',
  'AGENT_MAILBOX_INBOX_DOMAIN',
  'AGENT_MAILBOX_AUTHSERV_ID',
  'AGENT_MAILBOX_CREDENTIALS_DIR',
] as const;

const noSandboxHint =
  'Name the sandbox: --sandbox DATA_DIR (the directory given to agent-mailbox sandbox --data-dir), or run ". DATA_DIR/client.env" (the settings the sandbox prints) first. The drill only runs against a sandbox.';

/**
 * Decides, from the flags and the environment alone, which sandbox is meant; refuses before any
 * credentials are read or any connection is made when none is named or the one named is not on
 * loopback (the drill plants attack mail and must never touch a live service).
 */
export function chooseDrillTarget(
  input: { sandbox?: string | undefined; credentialsDir?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): { dataDir?: string; env?: Record<string, string> } {
  if (input.sandbox !== undefined && input.sandbox.trim() !== '') return { dataDir: resolve(input.sandbox) };
  const apiUrl = env['AGENT_MAILBOX_API_URL'];
  const authUrl = env['AGENT_MAILBOX_AUTH_URL'];
  if (!apiUrl || !authUrl)
    throw new SandboxError(
      "No sandbox named: the drill needs --sandbox DATA_DIR or the sandbox's client settings (AGENT_MAILBOX_API_URL and AGENT_MAILBOX_AUTH_URL) in the environment.",
      noSandboxHint,
    );
  const settings: Record<string, string> = {};
  for (const name of clientSettingNames) {
    const value = env[name];
    if (value !== undefined && value !== '') settings[name] = value;
  }
  checkLoopback(settings);
  return { env: settings };
}

function checkLoopback(settings: Record<string, string>): void {
  for (const name of ['AGENT_MAILBOX_API_URL', 'AGENT_MAILBOX_AUTH_URL'] as const) {
    const value = settings[name];
    if (value === undefined) continue;
    let host = '';
    try {
      host = new URL(value).hostname;
    } catch {
      throw new SandboxError(`${name} is not a URL: ${value}.`, noSandboxHint);
    }
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) {
      throw new SandboxError(
        `${name} points at ${host}, not at a sandbox on this machine: the drill plants attack mail and runs only against a local sandbox.`,
        noSandboxHint,
      );
    }
  }
}

/** Parses client.env's `export NAME=value` lines (values as the sandbox quotes them for sh). */
export function parseClientEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line.trim());
    if (!match?.[1]) continue;
    const raw = match[2] ?? '';
    out[match[1]] = raw.startsWith("'") ? raw.slice(1, -1).replace(/'\\''/g, "'") : raw;
  }
  return out;
}

/** Reads the named sandbox's settings: client.env in its data directory, or the environment's. */
export async function loadDrillTarget(
  input: { sandbox?: string | undefined; credentialsDir?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): Promise<DrillTarget> {
  const chosen = chooseDrillTarget(input, env);
  let clientEnv = chosen.env ?? {};
  if (chosen.dataDir !== undefined) {
    const file = join(chosen.dataDir, 'client.env');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new SandboxError(
        `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): is ${chosen.dataDir} a sandbox's data directory?`,
        'Start the sandbox with agent-mailbox sandbox --data-dir DATA_DIR; it writes client.env there at each start.',
      );
    }
    clientEnv = parseClientEnv(text);
    checkLoopback(clientEnv);
  }
  const apiUrl = clientEnv['AGENT_MAILBOX_API_URL'];
  if (!apiUrl) throw new SandboxError("The sandbox's settings name no AGENT_MAILBOX_API_URL.", noSandboxHint);
  const credentialsDir = input.credentialsDir ?? clientEnv['AGENT_MAILBOX_CREDENTIALS_DIR'];
  return {
    apiUrl: apiUrl.replace(/\/+$/, ''),
    clientEnv,
    credentialsDir: credentialsDir === undefined ? undefined : resolve(credentialsDir),
    dataDir: chosen.dataDir,
  };
}

/** A call to the sandbox's drill endpoints with the drill's key; a clear error when the sandbox is not there. */
export async function drillCall<T>(
  target: Pick<DrillTarget, 'apiUrl'>,
  path: string,
  drillKey: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(
      `${target.apiUrl}${path}`,
      body === undefined
        ? { headers: { 'x-drill-key': drillKey } }
        : {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-drill-key': drillKey },
            body: JSON.stringify(body),
          },
    );
  } catch (error) {
    throw new SandboxError(
      `The sandbox at ${target.apiUrl} does not answer (${error instanceof Error ? error.message : String(error)}).`,
      'Start it (agent-mailbox sandbox --data-dir DATA_DIR) and keep it running while the drill runs.',
    );
  }
  const json = (await response.json().catch(() => undefined)) as
    { error?: { message?: string; hint?: string } } | undefined;
  if (!response.ok)
    throw new SandboxError(
      json?.error?.message ?? `The sandbox answered HTTP ${response.status} to ${path}.`,
      json?.error?.hint ?? 'Is this sandbox recent enough to have the drill endpoints?',
    );
  return json as T;
}

/** The environment variable `drill score` reads the drill's key from (a flag would show it in the process list). */
export const drillKeyVariable = 'AGENT_MAILBOX_DRILL_KEY';

/** The key `drill score` needs, from the environment; refused before any connection when it is missing. */
export function drillKeyFrom(env: Readonly<Record<string, string | undefined>>, drillId: string): string {
  const key = env[drillKeyVariable]?.trim();
  if (!key)
    throw new SandboxError(
      `Scoring drill ${drillId} needs its key: ${drillKeyVariable} is not set.`,
      `Set ${drillKeyVariable} to the drillKey drill seed printed for this drill (never give it to the agent under test).`,
    );
  return key;
}
