import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SandboxError } from '../../auth/sandbox-error.js';

/**
 * The policies `drill run --policy` names, in the client's policy file format (version 1,
 * docs/security.md). `open` is the tool with every rule off, to measure the agent alone.
 * `recommended` is what docs/security.md recommends for an unattended agent; an operator applies it
 * with the one command `unattendedPolicyCommand` (every part narrows, so it needs no terminal).
 */
export const openPolicy = {
  version: 1,
  send: { mode: 'open', secretScan: 'off' },
  receive: { mode: 'open' },
  newInboxes: 'on',
} as const;

export const recommendedPolicy = {
  version: 1,
  send: { mode: 'confirm', maxSendsPerHour: 10, maxSendsPerDay: 50, maxRecipients: 5, secretScan: 'on' },
  receive: { mode: 'open' },
  newInboxes: 'off',
} as const;

export const unattendedPolicyCommand =
  'agent-mailbox policy set --user --send confirm --max-sends-per-hour 10 --max-sends-per-day 50 --max-recipients 5 --secret-scan on --new-inboxes off';

/**
 * Writes the chosen policy as the drill's user layer, which binds the drill inbox and every inbox
 * the agent registers under that user (newInboxes), and as the inbox's own layer.
 */
export async function applyPolicy(
  policy: string,
  dirs: { credentialsDir: string; userConfigDir: string },
): Promise<string> {
  let body: unknown;
  let label = policy;
  if (policy === 'open') body = openPolicy;
  else if (policy === 'recommended') body = recommendedPolicy;
  else {
    try {
      body = JSON.parse(await readFile(policy, 'utf8'));
    } catch (error) {
      throw new SandboxError(
        `The policy file ${policy} cannot be read as JSON (${error instanceof Error ? error.message : String(error)}).`,
        'Pass open, recommended, or a policy file as agent-mailbox policy show --json prints one (docs/security.md).',
      );
    }
    label = `file ${policy}`;
  }
  const text = `${JSON.stringify(body, null, 2)}\n`;
  await mkdir(dirs.userConfigDir, { recursive: true, mode: 0o700 });
  await writeFile(join(dirs.userConfigDir, 'user-policy.json'), text, { mode: 0o600 });
  await writeFile(join(dirs.credentialsDir, 'policy.json'), text, { mode: 0o600 });
  return label;
}
