import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { settings, type Config } from '../config.js';
import { MailboxError, inputRef } from '../errors.js';
import { readSandboxSettings, sandboxSettingsPath } from '../sandbox-settings.js';
import { isLoopbackUrl, registeredSandbox } from './loopback-endpoints.js';
import type { StoredCredentials } from './stored-credentials.js';

type OriginConfig = { readonly [K in keyof Pick<Config, 'authUrl' | 'apiUrl'>]: string };

/** Where a directory belongs: the endpoints its inbox was registered on, or the sandbox that made it. */
interface RecordedOrigin {
  authUrl?: string | undefined;
  apiUrl?: string | undefined;
  /** The data directory of the sandbox whose credentials directory this is. */
  sandboxDataDir?: string;
}

/** A sandbox names its DATA_DIR/credentials in DATA_DIR/sandbox.json: the directory is its own before any inbox. */
function sandboxOwning(dir: string): RecordedOrigin | undefined {
  const dataDir = dirname(resolve(dir));
  if (basename(resolve(dir)) !== 'credentials' || !existsSync(sandboxSettingsPath(dataDir))) return undefined;
  try {
    const file = readSandboxSettings(dataDir);
    return resolve(file.credentialsDir) === resolve(dir)
      ? { authUrl: file.authUrl, apiUrl: file.apiUrl, sandboxDataDir: dataDir }
      : undefined;
  } catch {
    // A broken file still says the directory is a sandbox's: judged as one, with no endpoints to show.
    return { sandboxDataDir: dataDir };
  }
}

const originOf = (url: string | undefined): string | undefined =>
  url !== undefined && URL.canParse(url) ? new URL(url).origin : undefined;

/** Keeps an apiKey on the side it was issued on (a local sandbox, or the service), before any request or write. */
export function checkRegisteredOrigin(
  config: OriginConfig,
  dir: string,
  stored: Pick<StoredCredentials, 'authUrl' | 'apiUrl'> | undefined,
): void {
  const registered = stored !== undefined && (stored.authUrl !== undefined || stored.apiUrl !== undefined);
  // An inbox's own record decides; the sandbox beside the directory only names the way out.
  const recorded: RecordedOrigin | undefined = registered
    ? { authUrl: stored.authUrl, apiUrl: stored.apiUrl }
    : sandboxOwning(dir);
  if (recorded === undefined) return;
  const recordedLocal = !registered || registeredSandbox(recorded) !== undefined;
  const target = [config.authUrl, config.apiUrl].find((url) => isLoopbackUrl(url) !== recordedLocal);
  if (target === undefined) return;
  const where = resolve(dir);
  const was = originOf(recorded.apiUrl ?? recorded.authUrl);
  if (recordedLocal) {
    const dataDir = recorded.sandboxDataDir ?? sandboxOwning(dir)?.sandboxDataDir;
    const sandboxFlag = dataDir !== undefined ? `--sandbox ${dataDir}` : "--sandbox <the sandbox's --data-dir>";
    throw new MailboxError({
      code: 'credentials_wrong_service',
      message: `Refused: ${where} belongs to a local sandbox${was ? ` (${was})` : ''}, and this client points at ${originOf(target) ?? target}, a host off this machine. Nothing was sent or written.`,
      hint: `Start the client with ${sandboxFlag} (an MCP host: add it to the server's arguments), or load that sandbox's client.env; for an inbox of the service, use a credentials directory of its own.`,
      details: { credentialsDir: where, registeredOn: was ?? 'a local sandbox', endpoint: originOf(target) ?? target },
    });
  }
  throw new MailboxError({
    code: 'credentials_wrong_service',
    message: `Refused: ${where} holds an inbox of the service${was ? ` (${was})` : ''}, and this client points at ${originOf(target) ?? target}, a host on this machine (a local sandbox). Its apiKey is never sent there. Nothing was sent or written.`,
    hint: "Leave --sandbox and the loopback URLs out to use this inbox, or give the sandbox's inbox its own directory (--sandbox DATA_DIR picks the sandbox's).",
    details: { credentialsDir: where, registeredOn: was ?? 'the service', endpoint: originOf(target) ?? target },
  });
}

type TargetConfig = Pick<Config, 'authUrl' | 'apiUrl' | 'allowDefaultCredentialsDir' | 'sources'>;

/** Refuses a local sandbox by flag or env in the default credentials directory, kept for the operator's real inbox. */
export function checkCredentialsTarget(config: TargetConfig, dir: string): void {
  if (config.allowDefaultCredentialsDir) return;
  if (resolve(dir) !== resolve(settings.credentialsDir.defaultValue())) return;
  const local = (['authUrl', 'apiUrl'] as const).find(
    (name) =>
      (config.sources[name] === 'flag' || config.sources[name] === 'sandbox' || config.sources[name] === 'env') &&
      isLoopbackUrl(config[name]),
  );
  if (local === undefined) return;
  const allow = settings.allowDefaultCredentialsDir;
  const origin = new URL(config[local]).origin;
  throw new MailboxError({
    code: 'sandbox_in_default_dir',
    message: `Refused: ${resolve(dir)} is the default credentials directory, kept for a real inbox, and this client points at ${origin}, a host on this machine (a local sandbox). Nothing was written.`,
    hint: `Give the sandbox's inbox a directory of its own with ${inputRef('credentials_dir')} or ${settings.credentialsDir.env} (agent-mailbox sandbox prints one), or, if the default directory really is meant for it, set ${allow.env}=1 (CLI: ${allow.flag}).`,
    details: { credentialsDir: resolve(dir), endpoint: origin },
  });
}
