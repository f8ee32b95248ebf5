import { homedir } from 'node:os';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { MailboxError } from './errors.js';
import { readSandboxSettings } from './sandbox-settings.js';
import { liveEndpoints, liveScryptSalt } from './wire-constants.js';
import { isSwitchOn } from './switch-text.js';

/**
 * Each setting is declared once (flag, environment variable, parser, default); the CLI options,
 * `help auth` and docs/reference.md are generated from it. Precedence: flag > environment >
 * credentials.json > default; `undefined` never overrides. Only the entries read process.env.
 */

/** 'sandbox': from the settings file of the sandbox `--sandbox` names (between flag and environment). */
export type SettingSource = 'flag' | 'sandbox' | 'env' | 'credentials' | 'default';

export interface SettingDeclaration<T> {
  flag: string;
  env: string;
  describe: string;
  /** Default: the text as given. */
  parse?: (raw: string) => T;
  /** The credentials.json field that can supply this setting, when there is one. */
  credentialsField?: string;
  defaultValue: () => T;
  /** The default as the generated docs show it, where the value alone says nothing (empty, 0, machine-specific). */
  shownDefault?: string;
}

const parseUrl = (raw: string): string => new URL(raw).toString().replace(/\/$/, '');
/** A list of origins (scheme, host, port), by commas or spaces; a path or anything but http(s) is refused, as a typo. */
const parseOrigins = (raw: string): readonly string[] =>
  raw
    .split(/[\s,]+/)
    .filter((item) => item !== '')
    .map((item) => {
      const url = new URL(item);
      if (
        (url.protocol !== 'https:' && url.protocol !== 'http:') ||
        url.username !== '' ||
        url.password !== '' ||
        url.pathname !== '/' ||
        url.search !== '' ||
        url.hash !== ''
      ) {
        throw new Error(`"${item}" is not an origin (scheme://host[:port], nothing after it)`);
      }
      return url.origin;
    });
// An on/off setting, off unless given.
const offSwitch = { parse: isSwitchOn, defaultValue: () => false, shownDefault: 'off' };
const parsePositiveInt = (raw: string): number => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a positive whole number, got "${raw}"`);
  return n;
};

export const settings = {
  credentialsDir: {
    flag: '--credentials-dir',
    env: 'AGENT_MAILBOX_CREDENTIALS_DIR',
    describe: 'Directory holding credentials.json, session.jwt and capability.jwt (one inbox per directory).',
    // env-paths reads XDG_* itself; this is the one other place the environment is consulted.
    defaultValue: () => envPaths('agent-mailbox', { suffix: '' }).config,
    shownDefault: 'the per-user config dir, e.g. `~/.config/agent-mailbox`',
  },
  allowDefaultCredentialsDir: {
    flag: '--allow-default-credentials-dir',
    env: 'AGENT_MAILBOX_ALLOW_DEFAULT_CREDENTIALS_DIR',
    describe:
      'Let a client pointed at a loopback host (a local sandbox) use the default credentials directory, which is otherwise kept for real inboxes.',
    ...offSwitch,
  },
  sandbox: {
    flag: '--sandbox',
    env: 'AGENT_MAILBOX_SANDBOX',
    describe:
      'Use the local sandbox whose --data-dir this is: its hosts, salt, domain and credentials directory come from the sandbox.json it wrote there (a flag of one of those settings still wins). Hosts that pass no environment need this form.',
    defaultValue: () => '',
    shownDefault: 'none (the service)',
  },
  authUrl: {
    flag: '--auth-url',
    env: 'AGENT_MAILBOX_AUTH_URL',
    describe: 'Auth host (proof-of-work endpoints).',
    parse: parseUrl,
    credentialsField: 'authUrl',
    defaultValue: () => liveEndpoints.authUrl,
  },
  apiUrl: {
    flag: '--api-url',
    env: 'AGENT_MAILBOX_API_URL',
    describe: 'JMAP host (session at /.well-known/jmap).',
    parse: parseUrl,
    credentialsField: 'apiUrl',
    defaultValue: () => liveEndpoints.apiUrl,
  },
  allowedOrigins: {
    flag: '--allowed-origins',
    env: 'AGENT_MAILBOX_ALLOWED_ORIGINS',
    describe:
      'Other origins (scheme://host[:port], comma-separated) the JMAP session may name for its API, uploads, downloads and push stream; credentials go to no origin but the configured hosts and these.',
    parse: parseOrigins,
    defaultValue: (): readonly string[] => [],
    shownDefault: 'none',
  },
  scryptSalt: {
    flag: '--scrypt-salt',
    env: 'AGENT_MAILBOX_SCRYPT_SALT',
    describe: 'Proof-of-work salt text (its UTF-8 bytes are the salt).',
    credentialsField: 'scryptSalt',
    defaultValue: () => liveScryptSalt,
  },
  inboxDomain: {
    flag: '--inbox-domain',
    env: 'AGENT_MAILBOX_INBOX_DOMAIN',
    describe: 'Default inbox domain, used for $INBOX only when the server does not tell (spec §1.4).',
    credentialsField: 'inboxDomain',
    defaultValue: () => liveEndpoints.inboxDomain,
  },
  authservId: {
    flag: '--authserv-id',
    env: 'AGENT_MAILBOX_AUTHSERV_ID',
    describe:
      'The authserv-id your mail service writes its Authentication-Results under (RFC 8601); only the topmost such field is trusted for sender verdicts.',
    shownDefault: 'the inbox domain',
    // '': the inbox domain (authservIdOf), which is what the service and the sandbox both use.
    defaultValue: () => '',
  },
  timeoutMs: {
    flag: '--timeout-ms',
    env: 'AGENT_MAILBOX_TIMEOUT_MS',
    describe:
      'Time limit of one call to the service, in milliseconds: all its requests and retries share it (waits you ask for, such as wait_for_mail, come on top).',
    parse: parsePositiveInt,
    defaultValue: () => 30_000,
  },
  wakeCommand: {
    flag: '--wake-command',
    env: 'AGENT_MAILBOX_WAKE_COMMAND',
    describe: "Command the daily wake job runs when new mail arrived (the operator's choice only).",
    credentialsField: 'wakeCommand',
    defaultValue: () => '',
    shownDefault: 'none (the job only writes the digest)',
  },
  crontab: {
    flag: '--crontab',
    env: 'AGENT_MAILBOX_CRONTAB',
    describe: 'The crontab program the daily job is installed with (tests point it at a stand-in or another user).',
    defaultValue: () => 'crontab',
  },
  downloadDir: {
    flag: '--download-dir',
    env: 'AGENT_MAILBOX_DOWNLOAD_DIR',
    describe:
      'Directory attachments are saved in (default: the working directory; set it for an MCP server, whose working directory the host chooses).',
    // '': the working directory of the command (the CLI's, or wherever the host started the server).
    defaultValue: () => '',
    shownDefault: 'the working directory',
  },
  powWorkers: {
    flag: '--pow-workers',
    env: 'AGENT_MAILBOX_POW_WORKERS',
    describe: 'Worker threads for the proof of work (default: one per core); fewer leave cores to other work.',
    parse: parsePositiveInt,
    // 0: one per core, decided by the solver (src/pow/solve-pow.ts).
    defaultValue: (): number => 0,
    shownDefault: 'one per core',
  },
  debug: {
    flag: '--verbose',
    env: 'AGENT_MAILBOX_DEBUG',
    describe: 'Log debug details to stderr (secrets stay redacted).',
    ...offSwitch,
  },
} satisfies Record<string, SettingDeclaration<unknown>>;

export type SettingName = keyof typeof settings;
type ValueOf<K extends SettingName> = ReturnType<(typeof settings)[K]['defaultValue']>;

export type ConfigValues = { readonly [K in SettingName]: ValueOf<K> };

export interface Config extends ConfigValues {
  /** Where each value came from, for `help troubleshooting` and debug logs. */
  readonly sources: { readonly [K in SettingName]: SettingSource };
  /** Holds the user-wide policy and the marks of running wakes; not a setting, no flag moves it. */
  readonly userConfigDir: string;
}

/** As env-paths places it, but from the entry's environment, so a test's in-process run keeps to its own. */
export function resolveUserConfigDir(
  env: Readonly<Record<string, string | undefined>> = {},
  platform: NodeJS.Platform = process.platform,
): string {
  const nonEmpty = (value: string | undefined): string | undefined =>
    value === undefined || value === '' ? undefined : value;
  const home = nonEmpty(platform === 'win32' ? env.USERPROFILE : env.HOME) ?? homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'agent-mailbox');
  if (platform === 'win32')
    return join(nonEmpty(env.APPDATA) ?? join(home, 'AppData', 'Roaming'), 'agent-mailbox', 'Config');
  return join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, '.config'), 'agent-mailbox');
}

export interface ConfigInputs {
  flags?: Partial<Record<SettingName, string | boolean | number | undefined>>;
  env?: Readonly<Record<string, string | undefined>>;
  credentials?: Readonly<Record<string, unknown>>;
}

export function resolveConfig(inputs: ConfigInputs): Config {
  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const [name, decl] of Object.entries(settings) as [SettingName, SettingDeclaration<unknown>][]) {
    const flag = inputs.flags?.[name];
    const envRaw = inputs.env?.[decl.env];
    const stored = decl.credentialsField ? inputs.credentials?.[decl.credentialsField] : undefined;
    const parse = decl.parse ?? ((raw: string) => raw);
    try {
      if (flag !== undefined && flag !== '') {
        values[name] = typeof flag === 'string' ? parse(flag) : flag;
        sources[name] = 'flag';
      } else if (envRaw !== undefined && envRaw !== '') {
        values[name] = parse(envRaw);
        sources[name] = 'env';
      } else if (typeof stored === 'string' && stored !== '') {
        values[name] = parse(stored);
        sources[name] = 'credentials';
      } else {
        values[name] = decl.defaultValue();
        sources[name] = 'default';
      }
    } catch (error) {
      const where =
        flag !== undefined ? decl.flag : envRaw !== undefined ? decl.env : `credentials.json ${decl.credentialsField}`;
      // A bad setting is the operator's input: the same code as any other invalid input (exit 2).
      throw new MailboxError({
        code: 'invalid_input',
        message: `Invalid value for ${where}: ${(error as Error).message}`,
        hint: `Fix ${decl.flag} / ${decl.env}${decl.credentialsField ? ` / credentials.json ${decl.credentialsField}` : ''} and run again.`,
        cause: error,
      });
    }
  }
  // The sandbox's settings replace the environment's and credentials.json's (a host's old client.env must
  // not send a sandbox inbox's key to another host); a flag naming one is the operator's choice and stays.
  if (typeof values.sandbox === 'string' && values.sandbox !== '')
    for (const [name, value] of Object.entries(readSandboxSettings(values.sandbox))) {
      if (sources[name] === 'flag') continue;
      values[name] = name === 'authUrl' || name === 'apiUrl' ? parseUrl(value) : value;
      sources[name] = 'sandbox';
    }
  return Object.freeze({
    ...values,
    sources: Object.freeze(sources),
    userConfigDir: resolveUserConfigDir(inputs.env),
  }) as Config;
}

/** The authserv-id whose Authentication-Results are trusted: the setting, else the inbox domain. */
export function authservIdOf(config: Pick<Config, 'authservId' | 'inboxDomain'>): string {
  return (config.authservId || config.inboxDomain).trim().toLowerCase().replace(/\.$/, '');
}

/** True for settings that are on/off switches: a bare flag on the command line. */
export function isSwitchSetting(name: SettingName): boolean {
  return typeof settings[name].defaultValue() === 'boolean';
}
