import { resolve } from 'node:path';
import type { Account, InboxIdentity } from '../auth/account-registry.js';
import { authservIdOf } from '../config.js';
import { tryAcquireLock } from '../credentials/directory-lock.js';
import { markInboxWaking } from '../policy/records/wake-read-only.js';
import { Deadline } from '../gate/deadline.js';
import type { Check } from '../gate/outgoing.js';
import { openServiceGate } from '../gate/service-gate.js';
import { checkOutgoing } from '../request/check-outgoing.js';
import { jmapCapabilities } from '../wire-constants.js';
import type { Logger } from '../log.js';
import { fetchNewMail, type JmapCall, type NewMail } from './fetch-new-mail.js';
import { renderInboxDigest } from './inbox-digest.js';
import { writeAtomically } from './write-atomically.js';
import { shellQuote } from '../render/shell-quote.js';
import { runWakeCommand, type WakeCommandRun } from './run-wake-command.js';
import { wakePrompt } from './wake-prompt.js';
import { nonEmpty, readWatchSettings, watchPaths } from './watch-settings.js';
import { guardedInbox } from '../policy/records/inbox-state-dir.js';

export interface WakeOptions {
  credentialsDir: string;
  account: Account;
  /** Each run of `watch run` is a call of its own; default: the configured timeout from now. */
  deadline?: Deadline;
  /** Replaced only by tests that record what passes the check stage. */
  check?: Check;
  /** The wake process's environment (cron gives almost none); passed on to the agent command. */
  env: Readonly<Record<string, string | undefined>>;
  /** The operator's setting `wakeCommand`; else watch.json's. */
  wakeCommand?: string;
  log: Logger;
  now?: () => Date;
  signal?: AbortSignal;
  agentOutput?: { write(text: string): unknown };
}

export interface WakeResult {
  credentialsDir: string;
  inbox?: string;
  /** skipped: another wake of this directory was running (cron and `watch run` both set up). */
  mode: NewMail['mode'] | 'skipped';
  newMail: number;
  digestPath: string;
  agent: {
    ran: boolean;
    command?: string;
    exitCode?: number | null;
    timedOut?: boolean;
    durationMs?: number;
    reason: string;
  };
  /** wakeState moved forward: this mail is not reported again. */
  stateAdvanced: boolean;
  state: string;
  summary: string;
  next: string[];
}

/** New mail by JMAP state → digest → agent command (only with new mail) → state stored only after exit 0 (retry). */
export async function wake(options: WakeOptions): Promise<WakeResult> {
  const credentialsDir = resolve(options.credentialsDir);
  // Fails with credentials_missing before the lock would create the directory. On a connected
  // account this is the chosen inbox, whose files live in a folder of its own.
  const identity = await options.account.inbox();
  const dir = identity.stateDir;
  // One wake per inbox at a time, so an overlapping run never starts the agent twice. While it is
  // held, a connected account's inbox uses only read-only tokens (oauth-inbox-account.ts).
  const release = await tryAcquireLock(dir, 'wake');
  if (!release)
    return {
      credentialsDir,
      ...(identity.address ? { inbox: identity.address } : {}),
      mode: 'skipped',
      newMail: 0,
      digestPath: watchPaths(dir).digest,
      agent: { ran: false, reason: 'another wake of this inbox is running' },
      stateAdvanced: false,
      state: (await options.account.readState()).wakeState ?? '',
      summary: 'Another wake of this inbox is still running; this one did nothing.',
      next: [],
    };
  try {
    // The inbox is read-only for every process of this user while this wake runs, whatever the door or directory.
    const unmark = await markInboxWaking((await options.account.config()).userConfigDir, guardedInbox(identity).inbox);
    try {
      return await wakeLocked(options, credentialsDir, identity);
    } finally {
      await unmark();
    }
  } finally {
    await release();
  }
}

async function wakeLocked(options: WakeOptions, credentialsDir: string, identity: InboxIdentity): Promise<WakeResult> {
  const dir = identity.stateDir;
  const startedAt = options.now?.() ?? new Date();
  const { account, log } = options;
  const [state, settings] = await Promise.all([account.readState(), readWatchSettings(dir)]);
  const inbox = identity.address ?? identity.jmapAccountId;
  const deadline = options.deadline ?? Deadline.start({ timeoutMs: (await account.config()).timeoutMs });
  // JMAP through the gate of the run (session cache, 401 re-mint, deadline), marked as a wake for the check stage.
  const gate = openServiceGate(account, {
    log,
    deadline,
    signal: options.signal ?? new AbortController().signal,
    isWake: true,
    check: options.check ?? checkOutgoing,
  });
  const jmap = {
    request: async (methodCalls: JmapCall[]): Promise<JmapCall[]> =>
      (await gate.call({ using: [jmapCapabilities.core, jmapCapabilities.mail], methodCalls })).methodResponses,
  };
  const { accountId } = await gate.session();
  const mail = await fetchNewMail({ jmap, accountId, sinceState: state.wakeState, now: startedAt });
  const paths = watchPaths(dir);
  const authservId = authservIdOf(await account.config());
  const digest = renderInboxDigest({ inbox, mail, generatedAt: startedAt, authservId, since: state.lastWakeAt });
  // Readable by this user only: mail metadata is private.
  await writeAtomically(paths.digest, digest, 0o600);
  log.info(`wake: ${mail.total} new message(s) (${mail.mode}); digest at ${paths.digest}`);

  const command = nonEmpty(options.wakeCommand) ?? settings.wakeCommand;
  // On a connected account the agent names the inbox in every call.
  const inboxInput = identity.kind === 'oauth' && inbox ? inbox : undefined;
  const base = {
    credentialsDir,
    ...(inbox ? { inbox } : {}),
    mode: mail.mode,
    newMail: mail.total,
    digestPath: paths.digest,
    state: mail.state,
  };
  // The state moves on only once the mail was handled, so a failed run reports it again.
  const advanced = async (agent: WakeResult['agent'], summary: string, next: string[] = []): Promise<WakeResult> => {
    await account.updateState((s) => ({ ...s, wakeState: mail.state, lastWakeAt: startedAt.toISOString() }));
    return { ...base, agent, stateAdvanced: true, summary, next };
  };

  if (mail.total === 0)
    return advanced({ ran: false, reason: 'no new mail' }, 'No new mail since the last check; no agent was started.');
  if (!command)
    return advanced(
      { ran: false, reason: 'no wake command configured' },
      `${mail.total} new message(s); the digest is at ${paths.digest}. No agent command is configured, so nobody was woken.`,
      [
        `To wake an agent next time, the operator runs: agent-mailbox watch install --credentials-dir ${shellQuote(credentialsDir)}${inboxInput ? ` --inbox ${shellQuote(inboxInput)}` : ''} --wake-command '<command with {prompt}>'`,
      ],
    );

  const prompt = wakePrompt({ credentialsDir, inbox, inboxInput, digestPath: paths.digest });
  log.info(`wake: starting the agent command for ${mail.total} new message(s)`);
  let run: WakeCommandRun;
  try {
    run = await runWakeCommand({
      command,
      prompt,
      digestPath: paths.digest,
      credentialsDir,
      env: options.env,
      ...(settings.path ? { path: settings.path } : {}),
      ...(options.agentOutput ? { output: options.agentOutput } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    run = { exitCode: null, signal: null, timedOut: false, durationMs: 0 };
    log.error(`wake: could not start the agent command: ${(error as Error).message}`);
  }
  const agent = { ran: true, command, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs };
  if (run.exitCode === 0)
    return advanced(
      { ...agent, reason: 'new mail' },
      `${mail.total} new message(s); the agent command ran and finished (exit 0).`,
    );
  const how = run.timedOut
    ? 'timed out'
    : run.exitCode === null
      ? `was stopped (${run.signal ?? 'did not start'})`
      : `exited with ${run.exitCode}`;
  log.warn(`wake: the agent command ${how}; the state was kept so the next wake retries this mail`);
  return {
    ...base,
    agent: { ...agent, reason: `new mail; the command ${how}` },
    stateAdvanced: false,
    summary: `${mail.total} new message(s), but the agent command ${how}. The state was kept: the next wake reports this mail again.`,
    next: [`Check the command by hand, and its output in ${paths.log}.`],
  };
}
