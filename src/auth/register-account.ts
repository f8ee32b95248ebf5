import * as z from 'zod';
import type { Config } from '../config.js';
import { MailboxError, inputRef, settingRef } from '../errors.js';
import { decodeJwtClaims, tokenClaims } from '../http/bearer-token.js';
import { withDirectoryLock } from '../credentials/directory-lock.js';
import { credentialsExistError, inboxLocalPart, isSameInbox } from '../credentials/credential-store.js';
import type { StoredCredentials } from '../credentials/stored-credentials.js';
import { Deadline } from '../gate/deadline.js';
import { requestService } from '../gate/send-to-service.js';
import { maskApiKey, rememberSecret } from '../redact.js';
import { jmapCapabilities, jmapSessionPath, usernameLength, usernamePattern } from '../wire-constants.js';
import {
  lockFor,
  type AccountContext,
  type CallOptions,
  type RegisterOutcome,
  type RegisterRequest,
} from './account-registry.js';
import type { TokenChain } from './token-chain.js';

/** Sign-up, apiKey login or idempotent replay for one credentials directory. */
export async function registerAccount(
  ctx: AccountContext,
  chain: TokenChain,
  request: RegisterRequest,
  call: CallOptions = {},
): Promise<RegisterOutcome> {
  if (request.username !== undefined) checkUsername(request.username);
  else if (!request.apiKey)
    throw new MailboxError({
      code: 'invalid_input',
      message: 'register needs a username (to sign up) or an apiKey (to log in to an existing inbox).',
      hint: `Pass a username of ${usernameLength.min}–${usernameLength.max} characters.`,
    });
  // Under the lock: a second register in another process waits and then sees the stored inbox.
  return withDirectoryLock(
    ctx.dir,
    'auth',
    async () => {
      const existing = await ctx.store.readCredentials();
      if (request.username !== undefined) {
        if (existing) return replay(ctx, existing, request, request.username);
        return signUp(ctx, chain, request.username, request, call);
      }
      if (existing && existing.apiKey === request.apiKey) return replay(ctx, existing, request, existing.inboxId);
      return logIn(ctx, chain, request.apiKey ?? '', existing, request, call);
    },
    lockFor(ctx.lock, call),
  );
}

/** Sign-up is never resent (single-use challenge), so a lost answer loses the apiKey: say so plainly. */
function answerLost(error: unknown, username: string, dir: string): unknown {
  if (!(error instanceof MailboxError)) return error;
  const lost =
    error.code === 'timeout' ||
    error.code === 'network' ||
    (error.code === 'server_error' && error.status !== 503) ||
    error.code === 'response_too_large';
  if (!lost) return error;
  return new MailboxError({
    code: 'signup_answer_lost',
    message: `The sign-up of "${username}" was sent, but its answer was lost (${error.message}). The inbox may have been created on the service; its apiKey never reached this machine, so nothing was stored in ${dir}.`,
    hint: `Call register again with username ${username}: if the inbox was not created it will be now. If the service answers that the username is taken, that inbox cannot be used without its apiKey: register another username.`,
    details: { username, credentialsDir: dir },
    cause: error,
  });
}

function checkUsername(username: string): void {
  if (username.length < usernameLength.min || username.length > usernameLength.max || !usernamePattern.test(username))
    throw new MailboxError({
      code: 'username_invalid',
      message: `"${username}" is not a valid username.`,
      hint: `Use ${usernameLength.min}–${usernameLength.max} characters: lowercase letters, digits, ".", "-" or "_", starting and ending with a letter or digit.`,
    });
}

/** The operator's watch choice, as credentials.json keeps it (a wake command only when one was given). */
function watchChoice(request: RegisterRequest): Pick<StoredCredentials, 'watch' | 'wakeCommand'> {
  return { watch: request.watch, ...(request.wakeCommand !== undefined ? { wakeCommand: request.wakeCommand } : {}) };
}

async function replay(
  ctx: AccountContext,
  existing: StoredCredentials,
  request: RegisterRequest,
  wanted: string,
): Promise<RegisterOutcome> {
  if (inboxLocalPart(existing.inboxId) !== inboxLocalPart(wanted))
    throw credentialsExistError(existing, ctx.dir, wanted);
  // The watch choice is the operator's and may change; everything else stays as stored.
  const updated = { ...existing, ...watchChoice(request) };
  if (updated.watch !== existing.watch || updated.wakeCommand !== existing.wakeCommand)
    await ctx.store.writeCredentials(updated);
  const state = await ctx.store.readState().catch(() => ({}) as { session?: { accountId: string } });
  return outcome(ctx, 'existing', updated, state.session?.accountId);
}

async function signUp(
  ctx: AccountContext,
  chain: TokenChain,
  username: string,
  request: RegisterRequest,
  call: CallOptions,
): Promise<RegisterOutcome> {
  const config = await ctx.config();
  const client = ctx.authClient(config);
  const solved = await client.solveChallenge(call);
  ctx.stats.powSolves += 1;
  const opened = await client.openSession(solved, { username }, call).catch((error: unknown) => {
    throw answerLost(error, username, ctx.dir);
  });
  rememberSecret(opened.apiKey);
  if (!opened.apiKey)
    throw new MailboxError({
      code: 'bad_response',
      message: 'The sign-up answer carried no apiKey, so the new inbox cannot be used.',
      hint: `Check that ${settingRef('authUrl')} points at the Agent Mailbox auth host and try again with another username.`,
    });
  const inbox = opened.inbox ?? `${username}@${config.inboxDomain}`;
  const credentials: StoredCredentials = {
    apiKey: opened.apiKey,
    inboxId: inboxLocalPart(inbox) || username,
    inbox,
    authUrl: config.authUrl,
    apiUrl: config.apiUrl,
    scryptSalt: config.scryptSalt,
    inboxDomain: inbox.includes('@') ? inbox.slice(inbox.lastIndexOf('@') + 1) : config.inboxDomain,
    ...watchChoice(request),
    createdAt: new Date().toISOString(),
  };
  // The apiKey is shown once and is the only way back in: store it before any further step can fail.
  await ctx.store.writeCredentials(credentials);
  ctx.stats.sessionRenewals += 1;
  await ctx.store.writeToken('session', opened.sessionJwt);
  // Nothing below may lose the inbox: a failed capability is retried by the next call's token chain.
  let accountId: string | undefined;
  try {
    const capability = await client.mintCapability(opened.sessionJwt, call);
    ctx.stats.capabilityMints += 1;
    await ctx.store.writeToken('capability', capability);
    chain.adopt(opened.sessionJwt, capability);
    accountId = await discoverJmapAccountId(ctx, config, capability, call);
  } catch (error) {
    ctx.log.warn(
      `The inbox was created and its apiKey stored, but minting the first capability failed: ${(error as Error).message}`,
    );
  }
  return outcome(ctx, 'signup', credentials, accountId, solved.pow);
}

/** A refused key login: nothing was stored, and the only ways forward are the right key or a new inbox. */
function refusedApiKey(error: MailboxError): MailboxError {
  return new MailboxError({
    code: 'auth_rejected',
    ...(error.status !== undefined ? { status: error.status } : {}),
    message: error.message,
    hint: 'Check that the whole apiKey was given, exactly as shown at sign-up (it starts with amk_); nothing was stored. The service shows an apiKey only once: if it is lost, that inbox cannot be reached, so register a new inbox with a username instead.',
    cause: error,
  });
}

async function logIn(
  ctx: AccountContext,
  chain: TokenChain,
  apiKey: string,
  existing: StoredCredentials | undefined,
  request: RegisterRequest,
  call: CallOptions,
): Promise<RegisterOutcome> {
  const config = await ctx.config();
  const client = ctx.authClient(config);
  const solved = await client.solveChallenge(call);
  ctx.stats.powSolves += 1;
  const opened = await client.openSession(solved, { apiKey }, call).catch((error: unknown) => {
    throw error instanceof MailboxError && error.code === 'auth_rejected' ? refusedApiKey(error) : error;
  });
  ctx.stats.sessionRenewals += 1;
  const capability = await client.mintCapability(opened.sessionJwt, call);
  ctx.stats.capabilityMints += 1;
  const accountId = await discoverJmapAccountId(ctx, config, capability, call);
  // The inbox comes from the service: the capability's inboxId claim, else the login body or JMAP account id (§1.4 b).
  const claimed = decodeJwtClaims(capability, tokenClaims, 'capability JWT').inboxId;
  const address = [opened.inbox, accountId].find((a) => a?.includes('@'));
  const inboxId = claimed ?? (address ? inboxLocalPart(address) : undefined);
  if (!inboxId)
    throw new MailboxError({
      code: 'bad_response',
      message: 'The service accepted the apiKey but did not say which inbox it belongs to.',
      hint: `Check that ${settingRef('authUrl')} and ${settingRef('apiUrl')} point at the Agent Mailbox Service.`,
    });
  const inbox =
    address && inboxLocalPart(address) === inboxLocalPart(inboxId) ? address : `${inboxId}@${config.inboxDomain}`;
  if (existing && !isSameInbox(existing, { inboxId })) throw credentialsExistError(existing, ctx.dir, inbox);
  const credentials: StoredCredentials = {
    ...existing,
    apiKey,
    inboxId,
    inbox,
    ...(accountId ? { accountId } : {}),
    authUrl: config.authUrl,
    apiUrl: config.apiUrl,
    scryptSalt: config.scryptSalt,
    inboxDomain: inbox.slice(inbox.lastIndexOf('@') + 1),
    ...watchChoice(request),
    createdAt: existing?.createdAt ?? new Date().toISOString(),
  };
  await ctx.store.writeCredentials(credentials);
  await ctx.store.writeToken('session', opened.sessionJwt);
  await ctx.store.writeToken('capability', capability);
  chain.adopt(opened.sessionJwt, capability);
  return outcome(ctx, 'login', credentials, accountId, solved.pow);
}

const sessionShape = z.looseObject({ primaryAccounts: z.record(z.string(), z.string()) });

/** The JMAP session's mail account id (spec §2.6); best effort: register never fails after the apiKey is stored. */
async function discoverJmapAccountId(
  ctx: AccountContext,
  config: Config,
  capability: string,
  call: CallOptions,
): Promise<string | undefined> {
  try {
    const response = await requestService(
      `${config.apiUrl}${jmapSessionPath}`,
      { method: 'GET', headers: { authorization: `Bearer ${capability}`, accept: 'application/json' } },
      {
        deadline: call.deadline ?? Deadline.start({ timeoutMs: config.timeoutMs }),
        retry: 'idempotent',
        maxBytes: 1024 * 1024,
        log: ctx.log,
        retries: 1,
        fetch: ctx.fetch,
        signal: call.signal,
      },
    );
    const parsed = sessionShape.safeParse(response.json());
    return parsed.success ? parsed.data.primaryAccounts[jmapCapabilities.mail] : undefined;
  } catch (error) {
    ctx.log.debug(`JMAP session discovery after register failed (not needed now): ${(error as Error).message}`);
    return undefined;
  }
}

function outcome(
  ctx: AccountContext,
  mode: RegisterOutcome['mode'],
  credentials: StoredCredentials,
  accountId: string | undefined,
  pow?: RegisterOutcome['pow'],
): RegisterOutcome {
  const inbox = credentials.inbox ?? credentials.inboxId;
  const file = ctx.store.path('credentials');
  return {
    mode,
    inbox,
    accountId: accountId ?? credentials.accountId ?? inbox,
    credentialsDir: ctx.dir,
    credentialsFile: file,
    apiKeyMasked: maskApiKey(credentials.apiKey),
    watch: credentials.watch ?? 'on-demand',
    ...(pow ? { pow } : {}),
    next: [
      mode === 'existing'
        ? `This directory already holds ${inbox}; nothing was changed except the watch choice.`
        : `Inbox ${inbox} is ready; list its mail with jmap_request ${inputRef('ops_file')} list_inbox.`,
      `The apiKey is stored in ${file} (mode 0600) and is the only way back into this inbox: back that file up and never share it.`,
    ],
  };
}
