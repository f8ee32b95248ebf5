import { resolve } from 'node:path';
import { settings, type Config } from '../config.js';
import { MailboxError, inputRef } from '../errors.js';
import { isLoopbackUrl } from './loopback-endpoints.js';

/** The settings the check reads. */
type TargetConfig = Pick<Config, 'authUrl' | 'apiUrl' | 'allowDefaultCredentialsDir' | 'sources'>;

/**
 * Refuses a client pointed at a loopback host (a local sandbox) by flag or environment when it
 * would use the default credentials directory: that directory is where the operator's real inbox
 * lives, and a sandbox inbox stored there outlives the sandbox and stands in the way of the real
 * one. Endpoints that come from the directory's own credentials.json were chosen when it was
 * registered, so they pass. `--allow-default-credentials-dir` lets it through on purpose.
 */
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
