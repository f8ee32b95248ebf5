import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { MailboxError } from './errors.js';
import { isRecord } from './is-record.js';
import { sandboxSettingsFile, sandboxSettingsFormat } from './wire-constants.js';

/** The client's side of `--sandbox DATA_DIR`: the documented file a sandbox wrote, never the sandbox's code. */
const stringFields = ['authUrl', 'apiUrl', 'scryptSalt', 'inboxDomain', 'authservId', 'credentialsDir'] as const;
export type SandboxSettings = Record<(typeof stringFields)[number], string>;

export function sandboxSettingsPath(dataDir: string): string {
  return join(resolve(dataDir), sandboxSettingsFile);
}

/** Refuses a missing, unreadable or foreign file with the way to make one. */
export function readSandboxSettings(dataDir: string): SandboxSettings {
  const path = sandboxSettingsPath(dataDir);
  const refuse = (why: string, cause?: unknown): MailboxError =>
    new MailboxError({
      code: 'sandbox_settings_missing',
      message: `--sandbox ${resolve(dataDir)}: ${why} Nothing was sent.`,
      hint: `Name the --data-dir of an agent-mailbox sandbox that has started at least once (\`agent-mailbox sandbox --data-dir ${resolve(dataDir)}\` writes ${sandboxSettingsFile} there), or leave --sandbox out to use the service.`,
      details: { sandboxSettings: path },
      ...(cause === undefined ? {} : { cause }),
    });
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw refuse(
      missing
        ? `no ${sandboxSettingsFile} there, so it is not a sandbox's data directory (or the sandbox never started).`
        : `${path} cannot be read as JSON (${(error as Error).message}).`,
      error,
    );
  }
  const record = isRecord(parsed) ? parsed : {};
  if (record.format !== sandboxSettingsFormat)
    throw refuse(
      `${path} is not in the format this client reads (${sandboxSettingsFormat}); a sandbox of this version rewrites it at start.`,
    );
  const settings: Partial<SandboxSettings> = {};
  for (const field of stringFields) {
    const value = record[field];
    if (typeof value !== 'string' || value === '')
      throw refuse(`${path} has no ${field}; start the sandbox again to rewrite it.`);
    settings[field] = value;
  }
  if (!isAbsolute(settings.credentialsDir as string))
    throw refuse(`${path} names a relative credentialsDir; start the sandbox again to rewrite it.`);
  return settings as SandboxSettings;
}
