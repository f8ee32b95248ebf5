import { resolve } from 'node:path';
import * as z from 'zod';
import { resolveConfig } from '../config.js';
import { MailboxError, inputRef, toMailboxError } from '../errors.js';
import { usernameLength, usernamePattern } from '../wire-constants.js';
import type { PowProgress } from '../pow/pow-progress.js';
import type { RegisterOutcome, WatchMode } from '../auth/account-registry.js';
import { shellQuote } from '../render/shell-quote.js';
import { defineLazyOperation, inputErrorCodes, optionalText, type OperationContext } from './define-operation.js';
import { loadHandlers } from './handlers/load.js';
import { watchTarget } from './watch.js';

const watchChoiceMessage =
  'watch is required and is the operator\'s decision: "scheduled" installs a daily 09:00 job that wakes an agent to read the inbox; "on-demand" installs nothing. Ask the operator which they want.';

// What the model reads in tools/list on every turn: the choice and who makes it, nothing more.
const watchDescription = "The operator's choice, ask them: scheduled (a daily 09:00 job wakes an agent) or on-demand.";

const usernameRule = `username must be ${usernameLength.min}–${usernameLength.max} characters: lowercase letters, digits, ".", "-" or "_", starting and ending with a letter or digit`;

const registerInput = () =>
  z.object({
    username: z
      .string()
      .min(usernameLength.min, usernameRule)
      .max(usernameLength.max, usernameRule)
      .regex(usernamePattern, usernameRule)
      .optional()
      .describe('Local part of the new address, e.g. my-agent. Omit only with api_key.')
      .register(inputErrorCodes, { code: 'username_invalid' }),
    watch: z
      .enum(['scheduled', 'on-demand'], {
        error: (issue) =>
          issue.input === undefined
            ? watchChoiceMessage
            : `watch must be "scheduled" (a daily 09:00 job wakes an agent to read the inbox) or "on-demand" (nothing installed), not ${JSON.stringify(issue.input)}; the choice is the operator's.`,
      })
      .describe(watchDescription),
    credentials_dir: optionalText("Directory for this inbox's credentials; omit for the default."),
    api_key: optionalText('Log in to an existing inbox instead; only a key the operator gives you.'),
  });

const registerOutput = () =>
  z.looseObject({
    mode: z.enum(['signup', 'login', 'existing']),
    inbox: z.string(),
    accountId: z.string(),
    credentialsDir: z.string(),
    credentialsFile: z.string(),
    apiKeyMasked: z.string(),
    watch: z.enum(['scheduled', 'on-demand']),
    pow: z.object({ difficulty: z.number(), tried: z.number(), elapsedMs: z.number() }).optional(),
    watchJob: z.object({
      mode: z.enum(['scheduled', 'on-demand']),
      installed: z.boolean(),
      summary: z.string(),
      verify: z.array(z.string()),
      remove: z.string().optional(),
      next: z.array(z.string()),
    }),
    next: z.array(z.string()),
  });

export function describePowProgress(p: PowProgress): string {
  const eta = Number.isFinite(p.etaSeconds)
    ? `~${Math.max(1, Math.round(p.etaSeconds))} s left on average`
    : 'estimating';
  return `Solving proof of work: ${p.tried} hashes tried (mean ${p.expected} for difficulty ${p.difficulty}), ${p.rate.toFixed(1)} hashes/s, ${eta}.`;
}

// Registrations that outlived their call's deadline, for the next identical call to collect.
const pendingRegistrations = new Map<string, Promise<RegisterOutcome>>();

async function registerWithinDeadline(
  input: z.infer<ReturnType<typeof registerInput>>,
  ctx: OperationContext,
): Promise<RegisterOutcome> {
  const account = ctx.accounts.open(input.credentials_dir);
  const key = JSON.stringify([account.dir, input.username ?? '', input.api_key ? 'key' : '']);
  let lastProgress: PowProgress | undefined;
  let pending = pendingRegistrations.get(key);
  const worker = new AbortController();
  if (!pending) {
    pending = account.register(
      { username: input.username, apiKey: input.api_key, watch: input.watch },
      {
        signal: worker.signal,
        // The registration may outlive this call (the next identical call collects it): the door's budget stays out.
        deadline: ctx.deadline.withoutBudget(),
        onProgress: (p) => {
          lastProgress = p;
          ctx.progress({ progress: p.tried, total: p.expected, message: describePowProgress(p) });
        },
      },
    );
    pendingRegistrations.set(key, pending);
    const forget = (): boolean => pendingRegistrations.delete(key);
    pending.then(forget, forget);
  }
  // A cancelled call stops the proof of work; a call that merely ran out of time leaves it running.
  const onAbort = (): void => worker.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const budgetLeftMs = ctx.deadline.budgetLeftMs();
    if (budgetLeftMs === undefined) return await pending;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), budgetLeftMs);
    });
    const first = await Promise.race([pending, deadline]);
    if (first !== 'late') return first;
    pending.catch(() => undefined);
    const tried = lastProgress ? `${lastProgress.tried} hashes tried, ` : '';
    const eta = lastProgress ? describePowProgress(lastProgress) : '';
    throw new MailboxError({
      code: 'pow_too_slow',
      message: `The proof of work is still running (${tried}it continues in the background). ${eta}`.trim(),
      hint: 'Call register again with exactly the same arguments in a minute to collect the result; no work is lost.',
      next: { operation: 'register', input: { ...input, api_key: input.api_key ? '<same key>' : undefined } },
    });
  } finally {
    if (timer) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Installs the daily job for `scheduled`, and for `on-demand` only reports a job left from before.
 * A failure to install never undoes a registration: the inbox exists and its key is stored, so the
 * report says what failed and how to install the job later.
 */
export async function applyWatchChoice(
  credentialsDir: string,
  mode: WatchMode,
  ctx: OperationContext,
  wakeCommand: string | undefined,
): Promise<z.infer<ReturnType<typeof registerOutput>>['watchJob']> {
  const dirFlag = `--credentials-dir ${shellQuote(resolve(credentialsDir))}`;
  try {
    // Loaded here so that register's start does not pay for the watch code (node-cron, crontab).
    const { installWatch, removeWatchHint, watchStatus } = await import('../watch/index.js');
    const target = watchTarget(ctx, { credentials_dir: credentialsDir, wake_command: wakeCommand || undefined });
    const remove = removeWatchHint(credentialsDir, ctx.install.shellCommand);
    if (mode === 'scheduled') {
      const { installed, summary, verify, next } = await installWatch(target);
      return { mode, installed, summary, verify, remove, next };
    }
    const status = await watchStatus(target);
    if (status.installed) {
      const summary = `on-demand: no job installed now, but a daily job from before still exists for this directory. ${status.summary}`;
      return { mode, installed: true, summary, verify: status.verify, remove, next: [] };
    }
    // No job to look for in a job table: only the status command, which also shows the operator's rules.
    return {
      mode,
      installed: false,
      summary: 'on-demand: no scheduled job; read the inbox when asked.',
      verify: [`${ctx.install.shellCommand} watch status ${dirFlag}`],
      next: [],
    };
  } catch (error) {
    const failure = toMailboxError(error);
    return {
      mode,
      installed: false,
      summary: `The inbox is registered, but the daily job could not be set up: ${failure.message}`,
      verify: [],
      next: [failure.hint, `${ctx.install.shellCommand} watch install ${dirFlag}`],
    };
  }
}

export const registerOperation = defineLazyOperation({
  name: 'register',
  title: 'Register an inbox',
  description: [
    "Create this agent's own e-mail inbox and store its credentials; call once, before jmap_request.",
    'Takes seconds to a minute (proof of work). Again with the same username: harmless.',
    'A second inbox needs its own credentials_dir. More: help topic auth.',
  ].join(' '),
  schemas: () => ({
    input: registerInput(),
    output: registerOutput(),
    cliInput: z.object({
      show_api_key: z.boolean().optional().describe('Print the full apiKey (operators only; never in logs).'),
      wake_command: optionalText('Agent command the daily job runs when mail arrived (watch=scheduled).'),
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  present: async (result, door) => (await loadHandlers()).presentRegister(result, door),
  cli: { reveal: ['apiKey'] },
  async run(input, ctx) {
    if (input.username === undefined && input.api_key === undefined)
      throw new MailboxError({
        code: 'invalid_input',
        message: `register needs a ${inputRef('username')} (to sign up) or an ${inputRef('api_key')} (to log in to an existing inbox).`,
        hint: `Pass a username of ${usernameLength.min}–${usernameLength.max} characters.`,
      });
    const { assertNewInboxAllowed, assertNoWakeRunning, rememberInboxDir } = await loadHandlers();
    // A directory that already holds an inbox only replays; any other is a new inbox or login.
    const account = ctx.accounts.open(input.credentials_dir);
    const hasInbox = await account.credentials().then(Boolean, () => false);
    const { userConfigDir } = await account.config();
    await assertNoWakeRunning(userConfigDir);
    if (!hasInbox)
      await assertNewInboxAllowed({
        userConfigDir,
        credentialsDir: account.dir,
        knownDirs: [resolveConfig(ctx.configInputs).credentialsDir],
      });
    const outcome = await registerWithinDeadline(input, ctx);
    // Its layer now binds every later new inbox too; the apiKey is stored, so a failure here only warns.
    await rememberInboxDir(userConfigDir, outcome.credentialsDir).catch((error: unknown) =>
      ctx.log.warn(
        `Could not add ${outcome.credentialsDir} to this user's list of inbox directories (${(error as Error).message}); its policy layer binds new inboxes only when named.`,
      ),
    );
    const watchJob = await applyWatchChoice(outcome.credentialsDir, input.watch, ctx, input.wake_command);
    const result = { ...outcome, watchJob, next: [...outcome.next, ...watchJob.next] };
    if (input.show_api_key === true)
      return { ...result, apiKey: await ctx.accounts.open(outcome.credentialsDir).revealApiKey() };
    return result;
  },
});
