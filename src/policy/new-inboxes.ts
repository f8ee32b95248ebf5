import { join, resolve } from 'node:path';
import { oauthFiles } from '../credentials/oauth-grant-files.js';
import { MailboxError } from '../errors.js';
import { assertUsable, loadPolicyLayers, policyPaths, type LoadedLayer } from './policy-layers.js';
import { knownInboxDirs, subdirectories } from './records/inbox-dirs.js';
import { anyWakeRunning } from './records/wake-read-only.js';

/**
 * `policy set --new-inboxes off`: no sign-up or login to another inbox. The new directory's own layer (empty, or
 * the agent's) cannot decide: an `off` in any layer this user's tool can find binds every new directory.
 */

export interface NewInboxScope {
  userConfigDir: string;
  credentialsDir: string;
  /** Other credentials directories this process knows of; those registered before are read from the user's list. */
  knownDirs?: readonly string[];
  machinePath?: string;
  /** What is refused, for the message: a sign-up or login, or a connected account. */
  action?: NewInboxAction;
}

type NewInboxAction = 'register' | 'connect';
const refused: Record<NewInboxAction, string> = { register: 'Not registered', connect: 'Not connected' };

/** Refuses before any proof of work runs when any layer found says newInboxes=off, or one cannot be read. */
export async function assertNewInboxAllowed(scope: NewInboxScope): Promise<void> {
  for (const layer of await everyLayer(scope)) {
    // A layer nobody can read may hold the rule: fail closed, naming the file.
    assertUsable([layer]);
    if (layer.policy.newInboxes !== 'off') continue;
    throw new MailboxError({
      code: 'policy_refused',
      message: `${refused[scope.action ?? 'register']}: your operator's policy (${layer.layer} layer at ${layer.path}, newInboxes=off) allows no new inbox and no login to another one, in any directory.`,
      hint: 'Use the inbox you have; ask your operator (the person you work for) if you need another.',
      details: { rule: { layer: layer.layer, path: layer.path, rule: 'newInboxes=off' } },
    });
  }
}

/** An inbox registered in a wake escapes its read-only rule; any wake counts (the asker cannot tell who woke it). */
export async function assertNoWakeRunning(userConfigDir: string, action: NewInboxAction = 'register'): Promise<void> {
  if (!(await anyWakeRunning(userConfigDir))) return;
  throw new MailboxError({
    code: 'policy_refused',
    message: `${refused[action]}: a wake is running for an inbox of this user, and no inbox may be registered, logged in to or connected until it ends.`,
    hint: 'Finish reading the mail you were woken for; your operator registers inboxes when no wake runs.',
    details: { rule: { rule: 'no register during a wake' } },
  });
}

/** The machine and user layers, and the inbox layer of every directory and connected inbox found. */
async function everyLayer(scope: NewInboxScope): Promise<LoadedLayer[]> {
  const recorded = await knownInboxDirs(scope.userConfigDir);
  // Stryker disable next-line ArrayDeclaration: a made-up relative directory holds no layer, like none at all
  const known = scope.knownDirs ?? [];
  const dirs = [
    ...new Set([scope.credentialsDir, scope.userConfigDir, ...known, ...recorded].map((dir) => resolve(dir))),
  ];
  // A connected account's directory holds a folder per inbox, each with its inbox's own layer.
  const inboxDirs = (
    await Promise.all(dirs.map(async (dir) => [dir, ...(await subdirectories(join(dir, oauthFiles.inboxFolders)))]))
  ).flat();
  const base = policyPaths({
    userConfigDir: scope.userConfigDir,
    ...(scope.machinePath ? { machinePath: scope.machinePath } : {}),
  });
  const shared = await loadPolicyLayers(base);
  const own = await Promise.all(
    inboxDirs.map(async (inboxDir) => {
      const layers = await loadPolicyLayers({ ...base, inboxDir });
      // Stryker disable next-line MethodExpression,ConditionalExpression: the machine and user layers again would only repeat what `shared` already holds
      return layers.filter((layer) => layer.layer === 'inbox');
    }),
  );
  return [...shared, ...own.flat()];
}
